// The delayed payout of a released milestone (enqueued by release, payout_delay_days later).
// pg-boss retries on failure; the transfer's idempotency key makes a retry pay once.
import { PAYOUT_QUEUE, payout } from '../src/lifecycle/milestones.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export function payoutJob(ctx: JobContext): JobDefinition<{ milestone_id: string }> {
  return {
    name: PAYOUT_QUEUE,
    // Payouts fall due in bursts (every contract's releases); each waits on the provider.
    concurrency: 4,
    async handler(data) {
      await payout({ db: ctx.db, payments: ctx.payments }, data.milestone_id);
    },
  };
}
