// Named places where a test may have this process die (SIGKILL, as a power cut or the OOM killer
// would), to prove that a retry after a crash at that exact place has one effect. Off unless
// GIGMARKET_CRASH_AT names the place (`<place>`, or `<place>:<Idempotency-Key>` for one request's
// key only, so that the process that answers one crashed request's retry can die at the next place
// on another request), and never in production.
import { readSetting } from './settings.ts';

const setting = readSetting(process.env, 'NODE_ENV') === 'production' ? undefined : readSetting(process.env, 'GIGMARKET_CRASH_AT');
const colon = setting?.indexOf(':') ?? -1;
/** The place, and the one key it is armed for (undefined: every request's). */
const armed = colon < 0 ? setting : setting!.slice(0, colon);
const armedKey = colon < 0 ? undefined : setting!.slice(colon + 1);

export type CrashPoint =
  /** An outside call answered; its result is not recorded yet. */
  | 'after-outside-call'
  /** Every outside call's result is recorded; the final transaction has not begun. */
  | 'before-final-transaction'
  /** The final transaction committed (effects and response); the response is not sent yet. */
  | 'after-final-transaction';

/** Dies here when armed for this place (and, when armed for one key, on a request with that key). */
export function crashPoint(point: CrashPoint, idempotencyKey: string): void {
  if (armed === point && (armedKey === undefined || armedKey === idempotencyKey)) process.kill(process.pid, 'SIGKILL');
}
