// vitest globalSetup: the dashboard's build (web/dist/) exists and is current before any test file
// starts a server, so `npm test` works on a fresh clone installed with --ignore-scripts too.
import { buildDashboard, dashboardBuildState } from '../../src/dashboard/build.ts';

export default async function setup(): Promise<void> {
  if (dashboardBuildState() !== 'current') await buildDashboard();
}
