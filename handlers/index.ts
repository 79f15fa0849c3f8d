// Every operation's handler, keyed by operationId. buildApp checks this against the spec at start.
import type { AppContext } from '../src/context.ts';
import { healthHandlers } from './health.ts';
import { keyHandlers } from './keys.ts';

export function allHandlers(ctx: AppContext) {
  return {
    ...healthHandlers(ctx),
    ...keyHandlers(ctx),
  };
}
