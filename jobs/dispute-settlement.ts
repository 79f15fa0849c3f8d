// One job per resolved dispute, enqueued in the transaction that resolved it: the refunds at the
// payment provider, then the milestones, the contract let go and the held payouts sent
// (src/services/dispute-resolution.ts). A provider failure is retried with the payouts' backoff;
// a repeat after success changes nothing.
import { settle } from '../src/services/dispute-resolution.ts';
import { DISPUTE_SETTLEMENT_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import type { Context } from '../src/context.ts';

export function disputeSettlementJob(ctx: Context): JobDefinition<QueuePayloads[typeof DISPUTE_SETTLEMENT_QUEUE]> {
  return {
    name: DISPUTE_SETTLEMENT_QUEUE,
    // One refund per disputed milestone (the provider's 10 s time-out each), then one transaction.
    expireInSeconds: 300,
    // The parties wait on it to see their money move: look often.
    pollingIntervalSeconds: 1,
    async handler(data, attempt) {
      try {
        await settle(ctx, data.dispute_id);
      } catch (err) {
        if (attempt.last) ctx.log.error({ err, disputeId: data.dispute_id }, 'dispute settlement failed on every retry');
        throw err;
      }
    },
  };
}
