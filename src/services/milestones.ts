// Money (docs/architecture.md §5, §7): the client funds a milestone (a payment at the provider), the provider
// confirms it, the client releases it, and a delayed job pays the worker. Provider calls carry
// idempotency keys derived from the milestone, and happen before our writes, so a repeat — also
// a concurrent one — returns the same payment, and a provider failure changes nothing here.
import type { Actor } from '../actor.ts';
import { setTimeout } from 'node:timers/promises';
import type { Executor, Tx } from '../../db/client.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow, MilestoneRow } from '../../db/repositories/contracts.ts';
import * as accountsRepo from '../../db/repositories/payment-accounts.ts';
import { ApiError, notFound } from '../errors.ts';
import { PaymentProviderError } from '../payments/provider.ts';
import { transition } from '../domain/state-machine.ts';
import { milestoneTransitions, SETTLED_MILESTONE_STATUSES, type MilestoneAction } from '../domain/milestone.ts';
import { requireRole } from '../domain/parties.ts';
import { move as moveContract } from './contracts.ts';
import { contractEvent, milestoneEvent } from './events.ts';
import type { Context } from '../context.ts';
import { callNow, type Outside } from '../outside.ts';
import { enqueueInTransaction, PAYOUT_QUEUE } from '../job-system/queues.ts';

function move(milestone: MilestoneRow, action: MilestoneAction) {
  return transition(milestoneTransitions, 'milestone', milestone.status, action);
}

async function clientContract(ctx: Context, actor: Actor, contractId: string, action: string) {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  requireRole(contract, actor.userId, 'client', action);
  if (contract.status !== 'active')
    throw new ApiError('INVALID_STATE', `cannot ${action} while the contract is ${contract.status}; it must be active`);
  return contract;
}

export interface FundResult {
  milestone: MilestoneRow;
  clientSecret: string | null;
  paymentId: string | null;
}

/** What funding needs before its transaction: the milestone's payment at the provider, if it takes one now. */
export interface FundingPlan {
  contractId: string;
  milestoneId: string;
  /** Null for a zero amount, and for a milestone already funded or being funded. */
  payment: { paymentId: string; clientSecret: string } | null;
}

/**
 * Funding's outside step: the payment at the provider, made before anything is written (so a
 * provider failure changes nothing here) with an idempotency key derived from the milestone.
 */
export async function planFunding(
  ctx: Context,
  actor: Actor,
  contractId: string,
  milestoneId: string,
  outside: Outside = callNow,
): Promise<FundingPlan> {
  const contract = await clientContract(ctx, actor, contractId, 'fund a milestone');
  const [current] = (await contractsRepo.listMilestones(ctx.db, [contract.id])).filter((m) => m.id === milestoneId);
  if (!current) throw notFound('milestone');
  if (current.status !== 'pending' || current.amountCents === 0) return { contractId, milestoneId, payment: null };
  const payment = await outside('payment', () => createPayment(ctx, contract, current));
  return { contractId, milestoneId, payment };
}

/** Funding's transaction. Already funded (or being funded): the same payment and secret again, never a second charge. */
export async function fund(ctx: Context, actor: Actor, plan: FundingPlan): Promise<FundResult> {
  return ctx.db.transaction(async (tx) => {
    const contract = await clientContract({ ...ctx, db: tx }, actor, plan.contractId, 'fund a milestone');
    const milestone = await contractsRepo.lockMilestone(tx, contract.id, plan.milestoneId);
    if (!milestone) throw notFound('milestone');
    if (milestone.status !== 'pending') {
      // A concurrent fund got here first with the same (idempotent) payment.
      return { milestone, clientSecret: milestone.clientSecret, paymentId: milestone.paymentId };
    }
    const { payment } = plan;
    const step = move(milestone, payment ? 'fund' : 'fund_free');
    const updated = await contractsRepo.updateMilestone(
      tx,
      milestone.id,
      payment
        ? { status: step.to, paymentId: payment.paymentId, clientSecret: payment.clientSecret }
        : { status: step.to, fundedAt: new Date() },
    );
    await milestoneEvent(tx, step.event, contract, updated, actor);
    return { milestone: updated, clientSecret: updated.clientSecret, paymentId: updated.paymentId };
  });
}

/** How often, and how long apart, fund waits for a concurrent fund of the same milestone at the provider. */
const IN_PROGRESS_ATTEMPTS = 6;
const IN_PROGRESS_BACKOFF_MS = 100;

/**
 * The milestone's payment at the provider. A concurrent fund of the same milestone may still hold
 * the idempotency key there (Stripe answers 409 "in progress"): wait for it and ask again, which
 * replays its payment, rather than failing a request that the other one is about to satisfy.
 */
async function createPayment(ctx: Context, contract: ContractRow, milestone: MilestoneRow) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.payments.createPayment({
        milestoneId: milestone.id,
        amountCents: milestone.amountCents,
        currency: milestone.currency,
        description: `${milestone.title} (contract ${contract.id})`,
        metadata: { contract_id: contract.id, milestone_id: milestone.id },
      });
    } catch (error) {
      if (!(error instanceof PaymentProviderError) || error.failure !== 'in_progress' || attempt >= IN_PROGRESS_ATTEMPTS) throw error;
    }
    await setTimeout(IN_PROGRESS_BACKOFF_MS * 2 ** (attempt - 1));
  }
}

/**
 * The milestone a payment is for, and its contract, locked in the order release locks them
 * (contract, then milestone): the other order deadlocks against a release of the same milestone.
 * Undefined when the payment is not one of ours.
 */
async function lockByPayment(tx: Executor, paymentId: string) {
  const found = await contractsRepo.findMilestoneByPayment(tx, paymentId);
  if (!found) return undefined;
  const contract = (await contractsRepo.lockContract(tx, found.contractId))!;
  const milestone = (await contractsRepo.lockMilestone(tx, contract.id, found.id))!;
  return { contract, milestone };
}

/**
 * The provider confirmed the payment: the milestone is funded. Returns false when the payment is
 * not one of ours. Repeats change nothing. A payment whose amount or currency differs from the
 * milestone's (say, edited at the provider) funds nothing: it is recorded as
 * milestone.payment_mismatch for the parties and the operator to settle.
 */
export async function paymentSucceeded(
  tx: Executor,
  input: { paymentId: string; amountCents: number; currency: string },
): Promise<boolean> {
  const locked = await lockByPayment(tx, input.paymentId);
  if (!locked) return false;
  const { contract, milestone } = locked;
  if (milestone.status !== 'funding') return true;
  if (milestone.amountCents !== input.amountCents || milestone.currency.toUpperCase() !== input.currency.toUpperCase()) {
    await milestoneEvent(tx, 'milestone.payment_mismatch', contract, milestone, null, {
      payment_id: input.paymentId,
      received_amount_cents: input.amountCents,
      received_currency: input.currency.toUpperCase(),
    });
    return true;
  }
  const step = move(milestone, 'confirm_payment');
  const updated = await contractsRepo.updateMilestone(tx, milestone.id, { status: step.to, fundedAt: new Date() });
  await milestoneEvent(tx, step.event, contract, updated, null);
  return true;
}

/** A payment attempt failed; the PaymentIntent stays open for another attempt. False when not ours. */
export async function paymentFailed(tx: Executor, input: { paymentId: string; reason: string }): Promise<boolean> {
  const locked = await lockByPayment(tx, input.paymentId);
  if (!locked) return false;
  const { contract, milestone } = locked;
  if (milestone.status !== 'funding') return true; // a late failure after a successful attempt
  const step = move(milestone, 'payment_failed');
  await milestoneEvent(tx, step.event, contract, milestone, null, { failure_reason: input.reason });
  return true;
}

/**
 * A payout that fails (the provider is down, say) is retried with exponential backoff on the payout
 * clock: the first retry one "minute" of a payout day later (60 s with real days), doubling, ten
 * times (about 17 hours in all), instead of pg-boss's default of two immediate retries.
 */
export function payoutRetries(payoutDaySeconds: number) {
  return { retryLimit: 10, retryDelay: Math.max(1, Math.round(payoutDaySeconds / 1440)), retryBackoff: true };
}

/** Enqueues the payout of a released milestone, due at `startAfter`, in the caller's transaction. */
export async function schedulePayout(ctx: Pick<Context, 'jobs' | 'config'>, tx: Tx, milestoneId: string, startAfter: Date) {
  await enqueueInTransaction(
    ctx.jobs,
    tx,
    PAYOUT_QUEUE,
    { milestone_id: milestoneId },
    { startAfter, singletonKey: milestoneId, ...payoutRetries(ctx.config.payoutDaySeconds) },
  );
}

/**
 * The client releases a funded milestone. The payout is scheduled payout_delay_days later by a
 * pg-boss job enqueued in the same transaction; when every milestone is released the contract
 * is completed.
 */
export async function release(ctx: Context, actor: Actor, contractId: string, milestoneId: string) {
  await clientContract(ctx, actor, contractId, 'release a milestone');
  return ctx.db.transaction(async (tx) => {
    const contract = await contractsRepo.lockContract(tx, contractId);
    if (contract!.status !== 'active')
      throw new ApiError('INVALID_STATE', `cannot release a milestone while the contract is ${contract!.status}`);
    const milestone = await contractsRepo.lockMilestone(tx, contractId, milestoneId);
    if (!milestone) throw notFound('milestone');
    const step = move(milestone, 'release');
    const releasedAt = new Date();
    const payoutDueAt = new Date(releasedAt.getTime() + contract!.payoutDelayDays * ctx.config.payoutDaySeconds * 1000);
    const updated = await contractsRepo.updateMilestone(tx, milestone.id, { status: step.to, releasedAt, payoutDueAt });
    await milestoneEvent(tx, step.event, contract!, updated, actor);
    await schedulePayout(ctx, tx, milestone.id, payoutDueAt);
    let finalContract = contract!;
    const all = await contractsRepo.listMilestones(tx, [contractId]);
    if (all.every((m) => SETTLED_MILESTONE_STATUSES.includes(m.status))) {
      const done = moveContract(contract!, 'complete');
      finalContract = await contractsRepo.updateContract(tx, contractId, { status: done.to, completedAt: new Date() });
      await contractEvent(tx, done.event, finalContract, actor);
    }
    return { milestone: updated, contract: finalContract };
  });
}

/**
 * What a payout run did: paid (or found paid), or held because the contract is disputed: no payout
 * of a disputed contract is made; the job re-schedules it (holdPayout) and the dispute's end sends
 * the payouts then due.
 */
export type PayoutOutcome = 'paid' | 'held' | 'skipped';

/** The payout job: transfer to the worker's account, then mark the milestone paid. Idempotent. */
export async function payout(ctx: Pick<Context, 'db' | 'payments'>, milestoneId: string): Promise<PayoutOutcome> {
  const found = await contractsRepo.getMilestoneWithContract(ctx.db, milestoneId);
  if (!found || found.milestone.status !== 'released') return 'skipped'; // already paid, or refunded
  const { milestone, contract } = found;
  if (contract.status === 'disputed') return 'held';
  // A dispute's split refunded the client's part: the worker is paid the rest.
  const amountCents = milestone.amountCents - milestone.refundedCents;
  let transferId: string | null = null;
  if (amountCents > 0) {
    const account = await accountsRepo.getPaymentAccount(ctx.db, contract.workerUserId, ctx.payments.name);
    if (!account)
      throw new Error(`worker ${contract.workerUserId} has no ${ctx.payments.name} account for payout of milestone ${milestone.id}`);
    ({ transferId } = await ctx.payments.createTransfer({
      milestoneId: milestone.id,
      amountCents,
      currency: milestone.currency,
      destinationAccountId: account.accountId,
      paymentId: milestone.paymentId ?? undefined,
    }));
  }
  await ctx.db.transaction(async (tx) => {
    const locked = await contractsRepo.lockMilestone(tx, contract.id, milestone.id);
    if (!locked || locked.status !== 'released') return;
    const step = move(locked, 'pay');
    const updated = await contractsRepo.updateMilestone(tx, locked.id, { status: step.to, transferId, paidAt: new Date() });
    await milestoneEvent(tx, step.event, contract, updated, null);
  });
  return 'paid';
}

/** How long a held payout waits before it looks again: one "hour" of a payout day (an hour with real days). */
export const payoutHoldSeconds = (payoutDaySeconds: number) => Math.max(1, Math.round(payoutDaySeconds / 24));

/** A payout held by a dispute is asked again later (nothing is lost; the dispute's end also sends it). */
export async function holdPayout(ctx: Pick<Context, 'db' | 'jobs' | 'config'>, milestoneId: string): Promise<void> {
  const later = new Date(Date.now() + payoutHoldSeconds(ctx.config.payoutDaySeconds) * 1000);
  await ctx.db.transaction((tx) => schedulePayout(ctx, tx, milestoneId, later));
}

/**
 * A payout's last retry failed (pg-boss parks its job in PAYOUT_FAILED_QUEUE): the milestone stays
 * `released`, since the money is still owed, and both parties are told with
 * `milestone.payout_failed`. Returns false when there is nothing to say (paid meanwhile).
 */
export async function payoutGaveUp(ctx: Pick<Context, 'db'>, milestoneId: string): Promise<boolean> {
  const found = await contractsRepo.getMilestoneWithContract(ctx.db, milestoneId);
  if (!found) return false;
  return ctx.db.transaction(async (tx) => {
    const locked = await contractsRepo.lockMilestone(tx, found.contract.id, milestoneId);
    if (!locked || locked.status !== 'released') return false;
    const step = move(locked, 'payout_failed');
    await milestoneEvent(tx, step.event, found.contract, locked, null, {
      failure_reason:
        'the transfer to the worker failed on every retry; the payout is still owed and will be sent again once the cause is fixed',
    });
    return true;
  });
}
