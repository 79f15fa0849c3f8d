// Hourly: forget idempotency keys past their 24 h, sessions that can no longer be used, and
// provider events too old to be redelivered.
import { housekeep } from '../src/services/housekeeping.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { HOUSEKEEPING_QUEUE } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function housekeepingJob(ctx: Context): JobDefinition {
  return {
    name: HOUSEKEEPING_QUEUE,
    // Three deletes, each possibly large after a busy day.
    expireInSeconds: 300,
    cron: '17 * * * *',
    async handler() {
      await housekeep(ctx);
      ctx.log.info('housekeeping done');
    },
  };
}
