// Hourly: forget idempotency keys past their 24 h, sessions that can no longer be used, and
// provider events too old to be redelivered.
import { deleteExpiredKeys } from '../db/repositories/idempotency.ts';
import { deleteDeadSessions } from '../db/repositories/sessions.ts';
import { deleteOldProviderEvents } from '../db/repositories/payment-accounts.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export const HOUSEKEEPING_QUEUE = 'housekeeping';

export function housekeepingJob(ctx: JobContext): JobDefinition {
  return {
    name: HOUSEKEEPING_QUEUE,
    cron: '17 * * * *',
    async handler() {
      await deleteExpiredKeys(ctx.db);
      await deleteDeadSessions(ctx.db);
      await deleteOldProviderEvents(ctx.db);
      ctx.log.info('housekeeping done');
    },
  };
}
