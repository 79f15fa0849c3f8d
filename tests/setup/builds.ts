// vitest globalSetup: the dashboard's build (web/dist/), the bundles of the server and the CLI
// (dist/server.js and dist/cli.js, what `npm start` and `npm run cli` run) and the embedded
// database's template (dist/pglite-template.tar.gz, what a new DATA_DIR starts from) exist and are
// current before any test file starts a server or the CLI, so `npm test` works on a fresh clone
// installed with --ignore-scripts too.
import { buildDashboard, dashboardBuildState } from '../../src/dashboard/build.ts';
import { buildBundles, bundleState } from '../../scripts/server-bundle.ts';
import { buildPgliteTemplate } from '../../scripts/pglite-template.ts';
import { pgliteTemplateState } from '../../scripts/pglite-template-state.ts';

export default async function setup(): Promise<void> {
  if (dashboardBuildState() !== 'current') await buildDashboard();
  if (bundleState() !== 'current') await buildBundles();
  if (pgliteTemplateState() !== 'current') await buildPgliteTemplate();
}
