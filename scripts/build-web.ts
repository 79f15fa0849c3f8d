// `npm run build:web`, and `postinstall`: builds the owners' dashboard (web/) into web/dist/.
// Always builds (an install may bring new sources or packages); `--if-needed` builds only when
// the build is missing or older than its sources, as `npm start` and the tests do.
import { buildDashboard, dashboardBuildState } from '../src/dashboard/build.ts';

const ifNeeded = process.argv.includes('--if-needed');
const state = dashboardBuildState();
if (ifNeeded && state === 'current') {
  console.log('web/dist is current');
} else {
  const started = performance.now();
  await buildDashboard();
  console.log(`built the dashboard into web/dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
