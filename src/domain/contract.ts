// The contract lifecycle of docs/architecture.md §5, as data. Handlers and jobs apply it through `transition`.
import type { TransitionTable } from './state-machine.ts';
import type { ContractStatus } from '../../db/schema/column-values.ts';

export { CONTRACT_STATUSES, type ContractStatus } from '../../db/schema/column-values.ts';

export type ContractAction =
  | 'approve'
  | 'complete_approval'
  | 'expire'
  | 'verify_worker'
  | 'revise'
  | 'reagree'
  | 'complete'
  | 'cancel'
  | 'dispute'
  | 'close_dispute_active'
  | 'close_dispute_completed';

export const contractTransitions: TransitionTable<ContractStatus, ContractAction> = [
  // The first approval leaves the status as it is; the second moves it on.
  { action: 'approve', from: ['pending_owner_approval'], to: 'pending_owner_approval', event: 'contract.approved' },
  { action: 'complete_approval', from: ['pending_owner_approval'], to: 'pending_freelancer_kyc', event: 'contract.pending_freelancer_kyc' },
  { action: 'expire', from: ['pending_owner_approval'], to: 'expired', event: 'contract.expired' },
  { action: 'verify_worker', from: ['pending_freelancer_kyc'], to: 'active', event: 'contract.active' },
  { action: 'revise', from: ['pending_owner_approval', 'pending_freelancer_kyc'], to: 'negotiation', event: 'contract.revised' },
  { action: 'reagree', from: ['negotiation'], to: 'pending_owner_approval', event: 'contract.updated' },
  { action: 'complete', from: ['active'], to: 'completed', event: 'contract.completed' },
  // A dispute holds the contract (no release, no funding, no payout) until it is withdrawn or its
  // resolution is settled; then the contract is completed if every milestone is settled, else active.
  { action: 'dispute', from: ['active', 'completed'], to: 'disputed', event: 'contract.disputed' },
  { action: 'close_dispute_active', from: ['disputed'], to: 'active', event: 'contract.dispute_closed' },
  { action: 'close_dispute_completed', from: ['disputed'], to: 'completed', event: 'contract.dispute_closed' },
  {
    action: 'cancel',
    from: ['pending_owner_approval', 'pending_freelancer_kyc', 'negotiation'],
    to: 'cancelled',
    event: 'contract.cancelled',
  },
];

/** Statuses in which a milestone can still be changed by a revise (nothing binding happened). */
export const REVISABLE: readonly ContractStatus[] = ['pending_owner_approval', 'pending_freelancer_kyc'];
