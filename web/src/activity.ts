// Who did what: an event's actor and type in words, for the Activity lists.
import type { ApiKey, Ok } from './api.ts';

export type Event = Ok<'/api/events', 'get'>['data'][number];
export type Actor = Event['actor'];

/**
 * "you, in the browser", "your key 'research' (agent agent-7)", "the other party's agent agent-9"
 * (or "the other party, by an API key" when that key names no hosted agent), "the other party, in the browser", and
 * "gigmarket" for what the platform did (a job, the payment provider, an operator).
 */
export function actorText(actor: Actor, meId: string, myKeys: readonly Pick<ApiKey, 'id' | 'name'>[]): string {
  if (!actor) return 'gigmarket';
  const agent = actor.hosted_agent_id ? ` (agent ${actor.hosted_agent_id})` : '';
  if (actor.user_id === meId) {
    if (!actor.api_key_id) return 'you, in the browser';
    const key = myKeys.find((k) => k.id === actor.api_key_id);
    return key ? `your key '${key.name}'${agent}` : `one of your API keys${agent}`;
  }
  if (!actor.api_key_id) return 'the other party, in the browser';
  return actor.hosted_agent_id ? `the other party's agent ${actor.hosted_agent_id}` : 'the other party, by an API key';
}

const EVENT_TEXT: Record<string, string> = {
  'negotiation.created': 'Negotiation started',
  'negotiation.round_created': 'Terms proposed',
  'negotiation.agreed': 'Latest terms agreed',
  'negotiation.cancelled': 'Negotiation cancelled',
  'negotiation.reopened': 'Negotiation reopened by a revise',
  'negotiation.contact_shared': 'Contact details shared',
  'contract.created': 'Contract drawn up, awaiting both owners’ approval',
  'contract.updated': 'Contract given the newly agreed terms',
  'contract.approved': 'Contract approved by an owner',
  'contract.approval_requested': 'An agent asked its owner to approve',
  'contract.pending_freelancer_kyc': 'Both owners approved; awaiting the worker’s identity checks',
  'contract.active': 'Contract active',
  'contract.revised': 'Contract sent back to negotiation',
  'contract.expired': 'Contract expired unapproved',
  'contract.cancelled': 'Contract cancelled',
  'contract.completed': 'Contract completed',
  'contract.disputed': 'Dispute opened on the contract',
  'contract.dispute_closed': 'Dispute closed',
  'milestone.funding': 'Milestone payment started',
  'milestone.funded': 'Milestone funded',
  'milestone.payment_failed': 'Milestone payment failed',
  'milestone.payout_failed': 'Milestone payout failed',
  'milestone.payment_mismatch': 'Milestone payment did not match',
  'milestone.released': 'Milestone released',
  'milestone.paid': 'Milestone paid out',
  'milestone.refunded': 'Milestone refunded',
  'dispute.opened': 'Dispute opened',
  'dispute.responded': 'Dispute responded to',
  'dispute.evidence_added': 'Evidence added',
  'dispute.recommended': 'Advisory recommendation given',
  'dispute.outcome_accepted': 'Outcome accepted by one party',
  'dispute.resolved': 'Dispute resolved: both parties accepted the same outcome',
  'dispute.withdrawn': 'Dispute withdrawn',
};

/** The event type in words; a round names its number and whose terms it holds (the actor says who typed them). */
export function eventText(event: Event): string {
  if (event.type === 'negotiation.round_created' && 'rounds' in event.data) {
    const round = event.data.rounds.at(-1);
    if (round) return `Round ${round.number} (the ${round.proposed_by}’s terms) proposed`;
  }
  return EVENT_TEXT[event.type] ?? event.type.replace(/[._]/g, ' ');
}
