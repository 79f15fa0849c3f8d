// The delayed payout of a released milestone (enqueued by release, payout_delay_days later).
// pg-boss retries on failure; the transfer's idempotency key makes a retry pay once. When the last
// retry fails too, the parties are told (milestone.payout_failed), the log says so, and pg-boss
// parks the job in the dead letter queue, from which it can be redriven once the cause is fixed.
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE, payout, payoutGaveUp } from '../src/lifecycle/milestones.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export function payoutJob(ctx: JobContext): JobDefinition<{ milestone_id: string }> {
  return {
    name: PAYOUT_QUEUE,
    // Payouts fall due in bursts (every contract's releases); each waits on the provider.
    concurrency: 4,
    deadLetter: PAYOUT_FAILED_QUEUE,
    async handler(data, attempt) {
      try {
        await payout({ db: ctx.db, payments: ctx.payments }, data.milestone_id);
      } catch (err) {
        if (attempt.last && await payoutGaveUp({ db: ctx.db }, data.milestone_id)) {
          ctx.log.error({ err, milestoneId: data.milestone_id, retries: attempt.retryCount }, `payout failed on every retry: the milestone stays released and is owed; its job waits in ${PAYOUT_FAILED_QUEUE}: npm run -s cli -- payouts redrive ${data.milestone_id}`);
        }
        throw err;
      }
    },
  };
}

