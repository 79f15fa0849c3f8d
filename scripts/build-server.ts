// `npm run build`, `postinstall`, and the first step of `npm start` and `npm run cli`: bundles the
// server and the CLI into dist/ (scripts/server-bundle.ts), and prepares the embedded database's
// template there (scripts/pglite-template.ts). `--if-needed` builds each only when it is missing or
// older than its sources, as `npm start` does.
import { buildBundles, bundleState } from './server-bundle.ts';
import { pgliteTemplateState } from './pglite-template-state.ts';

const ifNeeded = process.argv.includes('--if-needed');
if (!ifNeeded || bundleState() !== 'current') {
  const started = performance.now();
  await buildBundles();
  console.error(`bundled the server and the CLI into dist/ in ${Math.round(performance.now() - started)} ms`);
}
if (!ifNeeded || pgliteTemplateState() !== 'current') {
  const started = performance.now();
  // Loaded only to build: it brings the database layer, which `--if-needed` need not load.
  const { buildPgliteTemplate } = await import('./pglite-template.ts');
  await buildPgliteTemplate();
  console.error(`prepared the embedded database's template in dist/ in ${Math.round(performance.now() - started)} ms`);
}
