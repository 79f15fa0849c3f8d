// SIGTERM (and SIGINT): the process drains, then exits 0 (docs/guide/production.md, Metrics and
// health). At once, readiness answers 503 and no new job is taken; after SHUTDOWN_DELAY_MS (time
// for a balancer that polls readiness to take the process out of rotation) no new connection is
// accepted, the requests in flight finish, then the running jobs (given SHUTDOWN_GRACE_MS less what
// the steps after them need), and the database closes. Past SHUTDOWN_GRACE_MS the process exits
// anyway, with 1 (close-with-grace).
import closeWithGrace from 'close-with-grace';
import type { Config } from './config.ts';
import type { Runtime } from './runtime.ts';

/** Kept from the grace period for the last log lines (flushLogs waits up to 1 s) and the exit. */
const LAST_LINES_MS = 1_500;
/**
 * Kept, of the rest, for the steps after the jobs, which runtime.close cuts off when the time is up:
 * closing the webhook connections and the database (quick once the work is done), sending the last traces.
 */
const CLOSING_MS = 2_000;

export function drainOnSignals(runtime: Runtime, { delayMs, graceMs }: Config['shutdown']): void {
  const { log } = runtime.app;
  closeWithGrace({ delay: delayMs + graceMs }, async ({ signal, err }) => {
    // close-with-grace exits 1 this long after the signal, whatever is still running.
    const killedAt = Date.now() + delayMs + graceMs;
    if (err) log.error({ err }, 'shutting down after an error');
    else log.info({ signal }, 'shutting down');
    runtime.drain();
    if (!err && delayMs > 0) {
      log.info(`draining: not ready, still accepting connections for ${delayMs} ms (SHUTDOWN_DELAY_MS)`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    const deadline = killedAt - LAST_LINES_MS;
    await runtime.close({ jobsDeadline: deadline - CLOSING_MS, deadline });
    log.info('shut down');
    await runtime.flushLogs(); // the log is written asynchronously (src/http/logging.ts)
  });
}
