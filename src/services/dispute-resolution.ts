// A dispute's resolution (src/domain/dispute.ts): each party accepts an outcome; when both accept
// the same one, the dispute is resolved in that transaction, under the dispute's lock, so that two
// acceptances at once, or an acceptance and a withdrawal, have exactly one effect. The money then
// moves by the dispute-settlement job, as a release's money moves by the payout job: refunds at the
// provider first (idempotent per milestone), then, in one transaction, the milestones, the
// contract let go and the held payouts sent. Retried until it succeeds; a repeat changes nothing.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { MilestoneRow } from '../../db/repositories/contracts.ts';
import * as repo from '../../db/repositories/disputes.ts';
import {
  checkOutcome,
  DISPUTABLE_MILESTONE_STATUSES,
  divide,
  sameOutcome,
  type Acceptance,
  type DisputeOutcome,
} from '../domain/dispute.ts';
import { milestoneTransitions, type MilestoneAction } from '../domain/milestone.ts';
import { roleOf } from '../domain/parties.ts';
import { transition } from '../domain/state-machine.ts';
import { presentDispute } from '../presenters/disputes.ts';
import { DISPUTE_SETTLEMENT_QUEUE, enqueueInTransaction } from '../job-system/queues.ts';
import { moveDispute, partyDispute, releaseContract } from './disputes.ts';
import { disputeEvent, milestoneEvent } from './events.ts';
import { payoutRetries } from './milestones.ts';
import type { Executor } from '../../db/client.ts';

/** A party accepts an outcome; the second matching acceptance resolves the dispute. */
export async function accept(
  ctx: Pick<Context, 'db' | 'jobs' | 'config'>,
  actor: Actor,
  disputeId: string,
  input: { outcome: DisputeOutcome; workerSharePercent?: number | null },
) {
  const share = checkOutcome(input.outcome, input.workerSharePercent);
  const { contract } = await partyDispute(ctx, actor, disputeId);
  const role = roleOf(contract, actor.userId);
  return ctx.db.transaction(async (tx) => {
    const dispute = (await repo.lockDispute(tx, disputeId))!;
    const step = moveDispute(dispute, 'accept');
    const now = new Date();
    const mine: Acceptance = { outcome: input.outcome, worker_share_percent: share, accepted_at: now.toISOString() };
    const theirs = role === 'client' ? dispute.workerAcceptance : dispute.clientAcceptance;
    const patch = role === 'client' ? { clientAcceptance: mine } : { workerAcceptance: mine };
    const count = await repo.countEvidence(tx, dispute.id);
    if (!sameOutcome(mine, theirs ?? null)) {
      const updated = await repo.updateDispute(tx, dispute.id, patch);
      const view = presentDispute(updated, count);
      await disputeEvent(tx, step.event, contract, view, actor);
      return view;
    }
    const resolve = moveDispute(dispute, 'resolve');
    const milestones = (await contractsRepo.listMilestones(tx, [contract.id])).filter((m) => dispute.milestoneIds.includes(m.id));
    const resolution = {
      outcome: input.outcome,
      worker_share_percent: share,
      milestones: milestones.map((m) => {
        const { workerCents, refundCents } = divide(m.amountCents - m.refundedCents, input.outcome, share);
        return { milestone_id: m.id, worker_cents: workerCents, refund_cents: refundCents };
      }),
    };
    const updated = await repo.updateDispute(tx, dispute.id, { ...patch, status: resolve.to, resolution, resolvedAt: now });
    const view = presentDispute(updated, count);
    await disputeEvent(tx, resolve.event, contract, view, actor);
    await enqueueInTransaction(
      ctx.jobs,
      tx,
      DISPUTE_SETTLEMENT_QUEUE,
      { dispute_id: dispute.id },
      payoutRetries(ctx.config.payoutDaySeconds),
    );
    return view;
  });
}

const step = (m: MilestoneRow, action: MilestoneAction) => transition(milestoneTransitions, 'milestone', m.status, action);

/** Still holds the money the resolution divides (not paid out meanwhile, not settled by an earlier run). */
const unsettled = (m: MilestoneRow | undefined): m is MilestoneRow => m !== undefined && DISPUTABLE_MILESTONE_STATUSES.includes(m.status);

/**
 * The settlement job: refunds at the provider, then the milestones (refunded, or released with
 * their payout due now), the dispute settled, the contract let go, and the payouts then due sent.
 * A milestone paid out meanwhile (its transfer was under way when the dispute opened) is left as
 * it is: that money has gone. Idempotent.
 */
export async function settle(ctx: Pick<Context, 'db' | 'payments' | 'jobs' | 'config'>, disputeId: string): Promise<void> {
  const dispute = await repo.getDispute(ctx.db, disputeId);
  if (!dispute?.resolution || dispute.settledAt) return;
  const plan = dispute.resolution.milestones;
  const before = await contractsRepo.listMilestones(ctx.db, [dispute.contractId]);
  const refunds = new Map<string, string>();
  for (const item of plan) {
    const m = before.find((x) => x.id === item.milestone_id);
    if (item.refund_cents === 0 || !unsettled(m) || m.refundId || !m.paymentId) continue;
    const { refundId } = await ctx.payments.refund({
      milestoneId: m.id,
      paymentId: m.paymentId,
      amountCents: item.refund_cents,
      currency: m.currency,
    });
    refunds.set(m.id, refundId);
  }
  await ctx.db.transaction(async (tx) => {
    const contract = (await contractsRepo.lockContract(tx, dispute.contractId))!;
    const locked = (await repo.lockDispute(tx, disputeId))!;
    if (locked.settledAt) return;
    const now = new Date();
    for (const item of plan) {
      const m = await contractsRepo.lockMilestone(tx, contract.id, item.milestone_id);
      if (!unsettled(m)) continue;
      await settleMilestone(tx, contract, m, item, refunds.get(m.id) ?? null, now);
    }
    await repo.updateDispute(tx, locked.id, { settledAt: now });
    await releaseContract(ctx, tx, contract, null);
  });
}

async function settleMilestone(
  tx: Executor,
  contract: contractsRepo.ContractRow,
  m: MilestoneRow,
  item: { worker_cents: number; refund_cents: number },
  refundId: string | null,
  now: Date,
) {
  let current = m;
  if (item.worker_cents === 0 && item.refund_cents > 0) {
    const refund = step(current, 'refund');
    current = await contractsRepo.updateMilestone(tx, current.id, {
      status: refund.to,
      refundedCents: current.refundedCents + item.refund_cents,
      refundId,
    });
    await milestoneEvent(tx, refund.event, contract, current, null);
    return;
  }
  // The worker's part is released (if it was not) and paid out now: the dispute was the reason to wait.
  // Released and divided in one update, so that milestone.released already states the refund (what
  // the parties are told it pays: src/notifications/money.ts).
  const part = item.refund_cents > 0 ? { refundedCents: current.refundedCents + item.refund_cents, refundId } : {};
  if (current.status === 'funded') {
    const release = step(current, 'release');
    current = await contractsRepo.updateMilestone(tx, current.id, { status: release.to, releasedAt: now, payoutDueAt: now, ...part });
    await milestoneEvent(tx, release.event, contract, current, null);
  } else {
    current = await contractsRepo.updateMilestone(tx, current.id, { payoutDueAt: now, ...part });
  }
  if (item.refund_cents > 0) await milestoneEvent(tx, step(current, 'refund_part').event, contract, current, null);
}
