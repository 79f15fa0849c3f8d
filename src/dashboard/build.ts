// Building the owners' dashboard (web/, a Vite + React app) into web/dist/, which the server
// serves (serve.ts). It runs at install (`postinstall`: scripts/build-web.ts), at start when the
// build is missing or older than its sources (src/server.ts), and before the tests
// (tests/setup/builds.ts), so nobody ever builds by hand. A build goes to a directory of its
// own and is then moved into place, so a server never reads half a build.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root.ts';
import { newestMtime } from '../newest-mtime.ts';

export const WEB_DIR = join(PROJECT_ROOT, 'web');
export const DASHBOARD_DIST = join(WEB_DIR, 'dist');
/** What the build reads: when any of it is newer than the build, the build is stale. */
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts'];

export type BuildState = 'missing' | 'stale' | 'current';

export function dashboardBuildState(): BuildState {
  const index = join(DASHBOARD_DIST, 'index.html');
  if (!existsSync(index)) return 'missing';
  const built = statSync(index).mtimeMs;
  return SOURCES.some((s) => newestMtime(join(WEB_DIR, s)) > built) ? 'stale' : 'current';
}

/** Builds web/ into web/dist/ (about two seconds). */
export async function buildDashboard(): Promise<void> {
  const { build } = await import('vite');
  const stamp = `${process.pid}-${Date.now()}`;
  const out = join(WEB_DIR, `.dist-${stamp}`);
  const old = join(WEB_DIR, `.dist-old-${stamp}`);
  try {
    await build({ configFile: join(WEB_DIR, 'vite.config.ts'), build: { outDir: out, emptyOutDir: true } });
    if (existsSync(DASHBOARD_DIST)) renameSync(DASHBOARD_DIST, old);
    try {
      renameSync(out, DASHBOARD_DIST);
    } catch (err) {
      // Another process's build landed first (two test runs starting at once): keep that one.
      if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) throw err;
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

interface Log {
  info(message: string): void;
  error(message: string): void;
}

/**
 * Builds the dashboard when it is missing or stale. A failed build is logged, not thrown: the API
 * works without the page (which then answers 503 saying how to build it), and a stale build is
 * still served.
 */
export async function ensureDashboardBuilt(log: Log): Promise<BuildState> {
  const state = dashboardBuildState();
  if (state === 'current') return state;
  log.info(`the dashboard is ${state === 'missing' ? 'not built yet' : 'older than its sources'}: building web/ into web/dist/`);
  try {
    await buildDashboard();
    log.info('dashboard built');
  } catch (err) {
    log.error(`could not build the dashboard (npm run build:web shows why): ${err instanceof Error ? err.message : String(err)}`);
  }
  return state;
}
