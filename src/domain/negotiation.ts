// Negotiations (docs/architecture.md §5): rounds alternate between the parties until the one who did not
// propose the latest round agrees to it.
import type { TransitionTable } from './state-machine.ts';
import type { NegotiationStatus, PartyRole } from '../../db/schema/column-values.ts';

export { NEGOTIATION_STATUSES, type NegotiationStatus, PARTY_ROLES, type PartyRole } from '../../db/schema/column-values.ts';

export type NegotiationAction = 'propose' | 'agree' | 'cancel' | 'reopen' | 'end_with_contract';

export const negotiationTransitions: TransitionTable<NegotiationStatus, NegotiationAction> = [
  { action: 'propose', from: ['open'], to: 'open', event: 'negotiation.round_created' },
  { action: 'agree', from: ['open'], to: 'agreed', event: 'negotiation.agreed' },
  { action: 'cancel', from: ['open'], to: 'cancelled', event: 'negotiation.cancelled' },
  // A contract revise sends the negotiation back to open.
  { action: 'reopen', from: ['agreed'], to: 'open', event: 'negotiation.reopened' },
  // Cancelling its contract ends the negotiation too, agreed or re-opened by a revise.
  { action: 'end_with_contract', from: ['open', 'agreed'], to: 'cancelled', event: 'negotiation.cancelled' },
];

export const otherRole = (role: PartyRole): PartyRole => (role === 'client' ? 'worker' : 'client');
