// Hourly: every user without their tier's credits grant for the current month (UTC) gets it. Hourly
// rather than monthly so that a server down at the turn of a month catches up within the hour;
// a user gets one grant per month however often it runs (src/services/credits.ts), and a user
// who uses credits before it ran gets theirs at that moment.
import { grantMonthlyCredits } from '../src/services/credits.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { CREDIT_GRANTS_QUEUE } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function creditGrantsJob(ctx: Context): JobDefinition {
  return {
    name: CREDIT_GRANTS_QUEUE,
    // Batches of 200 users, each a short transaction; on the first of a month, every user.
    expireInSeconds: 600,
    cron: '5 * * * *',
    async handler() {
      const granted = await grantMonthlyCredits(ctx);
      if (granted) ctx.log.info({ granted }, 'monthly credits granted');
    },
  };
}
