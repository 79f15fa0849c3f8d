// `npm run build`, `postinstall`, and the first step of `npm start` and `npm run cli`: bundles the
// server and the CLI into dist/ (scripts/server-bundle.ts). `--if-needed` builds only when a bundle
// is missing or older than its sources, as `npm start` does.
import { buildBundles, bundleState } from './server-bundle.ts';

const state = bundleState();
if (process.argv.includes('--if-needed') && state === 'current') process.exit(0);
const started = performance.now();
await buildBundles();
console.error(`bundled the server and the CLI into dist/ in ${Math.round(performance.now() - started)} ms`);
