// Vouches: the caller vouches for another user, for good. Rules in src/services/vouches.ts.
import type { Context } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import * as vouches from '../src/services/vouches.ts';

export function vouchHandlers(ctx: Context): Handlers<'createVouch'> {
  return {
    createVouch: (request) => vouches.vouch(ctx, actorOf(request), request.body.vouched_user_id),
  };
}
