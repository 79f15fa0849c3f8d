// What the hourly housekeeping job forgets: idempotency keys past their 24 h, sessions that can no
// longer be used, webhook delivery attempts past 30 days, read inbox messages past 90 days, and
// provider events too old to be redelivered, WebAuthn challenges nobody answered in time, MCP
// sessions closed or expired, and expired OAuth records (codes, tokens, interactions).
import type { Context } from '../context.ts';
import { deleteExpiredKeys } from '../../db/repositories/idempotency.ts';
import { deleteDeadSessions } from '../../db/repositories/sessions.ts';
import { deleteOldProviderEvents } from '../../db/repositories/payment-accounts.ts';
import { deleteDeliveriesBefore } from '../../db/repositories/webhooks.ts';
import { deleteReadMessagesBefore } from '../../db/repositories/notifications.ts';
import { deleteExpiredChallenges } from '../../db/repositories/passkeys.ts';
import { deleteDeadMcpState } from './mcp-sessions.ts';
import { deleteExpiredOAuthRecords, deleteUnusedClients } from '../../db/repositories/oauth.ts';
import { revokeKeysOfEndedGrants } from './oauth-grants.ts';
import { idAt } from '../ids.ts';

/** How long the webhook delivery log keeps an attempt (and so how far back a replay reaches). */
export const DELIVERY_LOG_DAYS = 30;
/** How long a read inbox message is kept; unread ones stay until read. */
export const READ_MESSAGE_DAYS = 90;

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

export async function housekeep(ctx: Pick<Context, 'db'>): Promise<void> {
  await deleteExpiredKeys(ctx.db);
  await deleteDeadSessions(ctx.db);
  await deleteDeliveriesBefore(ctx.db, idAt(daysAgo(DELIVERY_LOG_DAYS)));
  await deleteReadMessagesBefore(ctx.db, idAt(daysAgo(READ_MESSAGE_DAYS)));
  await deleteOldProviderEvents(ctx.db);
  await deleteExpiredChallenges(ctx.db);
  await deleteDeadMcpState(ctx.db);
  await deleteExpiredOAuthRecords(ctx.db);
  await revokeKeysOfEndedGrants(ctx);
  await deleteUnusedClients(ctx.db);
}
