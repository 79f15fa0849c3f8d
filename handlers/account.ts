// Deleting one's own account, from a browser session. Rules in src/services/account.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { deleteAccount } from '../src/services/account.ts';

export function accountHandlers(): Handlers<'deleteAccount'> {
  return {
    deleteAccount: (request, _reply, { ctx }) => deleteAccount(ctx, actorOf(request), { confirm: request.body.confirm }),
  };
}
