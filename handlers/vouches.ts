// Vouches: the caller vouches for another user, for good. Rules in src/services/vouches.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import * as vouches from '../src/services/vouches.ts';

export function vouchHandlers(): Handlers<'createVouch'> {
  return {
    createVouch: (request, _reply, { ctx }) => vouches.vouch(ctx, actorOf(request), request.body.vouched_user_id),
  };
}
