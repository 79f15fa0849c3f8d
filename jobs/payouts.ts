// The delayed payout of a released milestone (enqueued by release, payout_delay_days later).
// pg-boss retries on failure; the transfer's idempotency key makes a retry pay once. When the last
// retry fails too, the parties are told (milestone.payout_failed), the log says so, and pg-boss
// parks the job in the dead letter queue, from which it can be redriven once the cause is fixed.
// While the contract is disputed the payout is held: re-scheduled, never made.
import { holdPayout, payout, payoutGaveUp } from '../src/services/milestones.ts';
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import type { Context } from '../src/context.ts';

export function payoutJob(ctx: Context): JobDefinition<QueuePayloads[typeof PAYOUT_QUEUE]> {
  return {
    name: PAYOUT_QUEUE,
    // One transfer: the provider's 10 s time-out and one retry, then two short writes.
    expireInSeconds: 120,
    // Payouts fall due in bursts (every contract's releases); each waits on the provider.
    concurrency: 4,
    deadLetter: PAYOUT_FAILED_QUEUE,
    async handler(data, attempt) {
      try {
        // A disputed contract's payout waits: a new job looks again later, this one completes.
        if ((await payout(ctx, data.milestone_id)) === 'held') await holdPayout(ctx, data.milestone_id);
      } catch (err) {
        if (attempt.last && (await payoutGaveUp(ctx, data.milestone_id))) {
          ctx.log.error(
            { err, milestoneId: data.milestone_id, retries: attempt.retryCount },
            'payout failed on every retry: the milestone stays released and is owed; ' +
              `its job waits in ${PAYOUT_FAILED_QUEUE}: npm run -s cli -- payouts redrive ${data.milestone_id}`,
          );
        }
        throw err;
      }
    },
  };
}
