// SIGTERM (and SIGINT): the process drains, then exits 0 (docs/guide/production.md, Metrics and
// health). At once, readiness answers 503 and no new job is taken; after SHUTDOWN_DELAY_MS (time
// for a balancer that polls readiness to take the process out of rotation) no new connection is
// accepted, the requests in flight finish, then the running jobs, and the database closes. Past
// SHUTDOWN_GRACE_MS the process exits anyway, with 1 (close-with-grace).
import closeWithGrace from 'close-with-grace';
import type { Config } from './config.ts';
import type { Runtime } from './runtime.ts';

/** Kept from the grace period for what follows the jobs: the relay, the database, the log. */
const AFTER_JOBS_MS = 1_000;

export function drainOnSignals(runtime: Runtime, { delayMs, graceMs }: Config['shutdown']): void {
  const { log } = runtime.app;
  closeWithGrace({ delay: delayMs + graceMs }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    runtime.drain();
    if (!err && delayMs > 0) {
      log.info(`draining: not ready, still accepting connections for ${delayMs} ms (SHUTDOWN_DELAY_MS)`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    await runtime.close({ jobsDeadline: Date.now() + graceMs - AFTER_JOBS_MS });
    log.info('shut down');
    await runtime.flushLogs(); // the log is written asynchronously (src/http/logging.ts)
  });
}
