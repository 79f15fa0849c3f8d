// Vouches: a signed-in user vouches for another, once and for good (no way to take it back). The
// table's key settles a race of two identical vouches: one is stored, with one event.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { getUser } from '../../db/repositories/users.ts';
import { insertVouch } from '../../db/repositories/vouches.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { presentVouch } from '../presenters/vouches.ts';
import { vouchEvent } from './events.ts';

export async function vouch(ctx: Pick<Context, 'db'>, actor: Actor, vouchedUserId: string) {
  if (vouchedUserId === actor.userId) throw validationFailed('body.vouched_user_id', 'you cannot vouch for yourself');
  return ctx.db.transaction(async (tx) => {
    const [voucher, vouched] = await Promise.all([getUser(tx, actor.userId), getUser(tx, vouchedUserId)]);
    if (!voucher) throw new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');
    // A deleted account takes no new vouches (the ones it had stay).
    if (!vouched || vouched.deletedAt) throw notFound('user');
    const row = await insertVouch(tx, actor.userId, vouchedUserId);
    if (!row) throw conflict('you already vouched for this user (a vouch is permanent)');
    await vouchEvent(tx, row, voucher.displayName, actor);
    return presentVouch(row, voucher.displayName);
  });
}
