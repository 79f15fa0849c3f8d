// Milestones (docs/architecture.md §5): pending -> funding -> funded -> released -> paid; a dispute's
// resolution may refund one (refunded), or part of one (released, with refunded_cents).
import type { TransitionTable } from './state-machine.ts';
import type { MilestoneStatus } from '../../db/schema/column-values.ts';

export { MILESTONE_STATUSES, type MilestoneStatus } from '../../db/schema/column-values.ts';

export type MilestoneAction =
  | 'fund'
  | 'fund_free'
  | 'confirm_payment'
  | 'payment_failed'
  | 'release'
  | 'pay'
  | 'payout_failed'
  | 'refund'
  | 'refund_part';

export const milestoneTransitions: TransitionTable<MilestoneStatus, MilestoneAction> = [
  { action: 'fund', from: ['pending'], to: 'funding', event: 'milestone.funding' },
  // A zero amount needs no payment: funded at once.
  { action: 'fund_free', from: ['pending'], to: 'funded', event: 'milestone.funded' },
  { action: 'confirm_payment', from: ['funding'], to: 'funded', event: 'milestone.funded' },
  // A failed attempt leaves the PaymentIntent open: the client retries with the same client_secret.
  { action: 'payment_failed', from: ['funding'], to: 'funding', event: 'milestone.payment_failed' },
  { action: 'release', from: ['funded'], to: 'released', event: 'milestone.released' },
  { action: 'pay', from: ['released'], to: 'paid', event: 'milestone.paid' },
  // A payout that failed every retry: still released (the money is still owed), and said so.
  { action: 'payout_failed', from: ['released'], to: 'released', event: 'milestone.payout_failed' },
  // A dispute's resolution: all of the money back to the client, or the client's part of a split
  // (the worker's part is then paid out as a release is).
  { action: 'refund', from: ['funded', 'released'], to: 'refunded', event: 'milestone.refunded' },
  { action: 'refund_part', from: ['released'], to: 'released', event: 'milestone.refunded' },
];

/** Statuses in which a milestone's money is settled: the contract can be completed. */
export const SETTLED_MILESTONE_STATUSES: readonly MilestoneStatus[] = ['released', 'paid', 'refunded'];
