// vitest globalSetup: the dashboard's build (web/dist/) and the server's bundle (dist/server.js, what
// `npm start` runs) exist and are current before any test file starts a server, so `npm test` works
// on a fresh clone installed with --ignore-scripts too.
import { buildDashboard, dashboardBuildState } from '../../src/dashboard/build.ts';
import { buildServer, serverBundleState } from '../../scripts/server-bundle.ts';

export default async function setup(): Promise<void> {
  if (dashboardBuildState() !== 'current') await buildDashboard();
  if (serverBundleState() !== 'current') await buildServer();
}
