// `npm run build`, `postinstall`, and the first step of `npm start`: bundles the server into
// dist/ (scripts/server-bundle.ts). `--if-needed` builds only when the bundle is missing or older
// than its sources, as `npm start` does.
import { buildServer, serverBundleState } from './server-bundle.ts';

const state = serverBundleState();
if (process.argv.includes('--if-needed') && state === 'current') process.exit(0);
const started = performance.now();
await buildServer();
console.error(`bundled the server into dist/ in ${Math.round(performance.now() - started)} ms`);
