// Milestones (docs/architecture.md §5): pending -> funding -> funded -> released -> paid.
import type { TransitionTable } from './state-machine.ts';

export const MILESTONE_STATUSES = ['pending', 'funding', 'funded', 'released', 'paid'] as const;
export type MilestoneStatus = (typeof MILESTONE_STATUSES)[number];
export type MilestoneAction = 'fund' | 'fund_free' | 'confirm_payment' | 'payment_failed' | 'release' | 'pay' | 'payout_failed';

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
];
