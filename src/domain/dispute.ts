// Disputes (docs/architecture.md §5): a party of an active contract, or of a completed one whose
// payouts are not all made, disputes money held in escrow. open -> responded (the other party
// answers, once) -> resolved (both parties accept the same outcome) | withdrawn (the opener).
// While a dispute is open or responded its contract is `disputed` and no payout of it is made.
import { ApiError, validationFailed } from '../errors.ts';
import type { MilestoneStatus } from './milestone.ts';
import type { TransitionTable } from './state-machine.ts';
import type { Acceptance, DisputeOutcome, DisputeStatus } from '../../db/schema/column-values.ts';

export {
  type Acceptance,
  DESCRIPTION_MAX,
  DISPUTE_OUTCOMES,
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  type DisputeOutcome,
  type DisputeReason,
  type DisputeStatus,
  EVIDENCE_KINDS,
  EVIDENCE_TEXT_MAX,
  type EvidenceKind,
  type Recommendation,
  type Resolution,
} from '../../db/schema/column-values.ts';

export type DisputeAction = 'respond' | 'withdraw' | 'accept' | 'resolve';

/** The statuses in which a dispute holds its contract (one such dispute per contract). */
export const LIVE_DISPUTE_STATUSES = ['open', 'responded'] as const satisfies readonly DisputeStatus[];

/** Per party and dispute: bounds storage, and what a recommendation sends to the model. */
export const EVIDENCE_PER_PARTY_MAX = 20;

export const disputeTransitions: TransitionTable<DisputeStatus, DisputeAction> = [
  { action: 'respond', from: ['open'], to: 'responded', event: 'dispute.responded' },
  { action: 'withdraw', from: ['open', 'responded'], to: 'withdrawn', event: 'dispute.withdrawn' },
  // Outcomes are accepted once both sides have been heard; the matching second acceptance resolves.
  { action: 'accept', from: ['responded'], to: 'responded', event: 'dispute.outcome_accepted' },
  { action: 'resolve', from: ['responded'], to: 'resolved', event: 'dispute.resolved' },
];

/** Milestones a dispute can concern: money in escrow (funded), or released but not yet paid out. */
export const DISPUTABLE_MILESTONE_STATUSES: readonly MilestoneStatus[] = ['funded', 'released'];

/** The outcome as given, checked: a split names the worker's share (1-99), the others none. */
export function checkOutcome(outcome: DisputeOutcome, share: number | null | undefined): number | null {
  if (outcome === 'split') {
    if (share === undefined || share === null) throw validationFailed('body.worker_share_percent', 'is required for a split');
    if (!Number.isInteger(share) || share < 1 || share > 99) throw validationFailed('body.worker_share_percent', 'must be 1 to 99');
    return share;
  }
  if (share !== undefined && share !== null) {
    throw validationFailed('body.worker_share_percent', `applies to a split only, not to ${outcome}`);
  }
  return null;
}

export const sameOutcome = (a: Pick<Acceptance, 'outcome' | 'worker_share_percent'> | null, b: typeof a) =>
  a !== null && b !== null && a.outcome === b.outcome && a.worker_share_percent === b.worker_share_percent;

/** How one milestone's money is divided: the worker's share rounded down, the rest back to the client. */
export function divide(amountCents: number, outcome: DisputeOutcome, share: number | null): { workerCents: number; refundCents: number } {
  const percent = outcome === 'release' ? 100 : outcome === 'refund' ? 0 : share!;
  const workerCents = Math.floor((amountCents * percent) / 100);
  return { workerCents, refundCents: amountCents - workerCents };
}

/** The opener withdraws; the other party responds. Both answer 403 to the wrong party. */
export function requireOpener(openerUserId: string, callerId: string, action: string): void {
  if (openerUserId !== callerId) throw new ApiError('FORBIDDEN', `only the party who opened the dispute can ${action}`);
}

export function requireOtherParty(openerUserId: string, callerId: string, action: string): void {
  if (openerUserId === callerId) throw new ApiError('FORBIDDEN', `only the party the dispute was opened against can ${action}`);
}
