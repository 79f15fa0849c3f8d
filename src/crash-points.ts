// Named places where a test may have this process die (SIGKILL, as a power cut or the OOM killer
// would), to prove that a retry after a crash at that exact place has one effect. Off unless
// GIGMARKET_CRASH_AT names the place, and never in production.
import { readSetting } from './config.ts';

const armed = readSetting(process.env, 'NODE_ENV') === 'production' ? undefined : readSetting(process.env, 'GIGMARKET_CRASH_AT');

export type CrashPoint =
  /** An outside call answered; its result is not recorded yet. */
  | 'after-outside-call'
  /** Every outside call's result is recorded; the final transaction has not begun. */
  | 'before-final-transaction'
  /** The final transaction committed (effects and response); the response is not sent yet. */
  | 'after-final-transaction';

export function crashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
