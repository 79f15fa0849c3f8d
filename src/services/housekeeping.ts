// What the hourly housekeeping job forgets: idempotency keys past their 24 h, sessions that can no
// longer be used, and provider events too old to be redelivered.
import type { Context } from '../context.ts';
import { deleteExpiredKeys } from '../../db/repositories/idempotency.ts';
import { deleteDeadSessions } from '../../db/repositories/sessions.ts';
import { deleteOldProviderEvents } from '../../db/repositories/payment-accounts.ts';

export async function housekeep(ctx: Pick<Context, 'db'>): Promise<void> {
  await deleteExpiredKeys(ctx.db);
  await deleteDeadSessions(ctx.db);
  await deleteOldProviderEvents(ctx.db);
}
