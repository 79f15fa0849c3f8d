// The event catalog's rules. Event types come from the spec's catalog (`webhooks:` in openapi.yaml,
// generated into src/generated/api.d.ts): writing an event whose name the catalog lacks fails to
// compile. Who each type is sent to (its audience) is this one table; the spec says the same per
// event (`x-audience`), and a test keeps the two equal.
import type { webhooks } from '../generated/api.d.ts';

export type EventType = keyof webhooks;

/**
 * `client`: the gig's client. `parties`: the client and the worker of the application,
 * negotiation or contract. `owner`: the user the key or profile belongs to (for a vouch or a
 * review: the user it is about; for credits: the user whose balance changed).
 */
export type AudienceRule = 'client' | 'parties' | 'owner';

export const EVENT_AUDIENCE: Record<EventType, AudienceRule> = {
  'gig.created': 'client',
  'gig.updated': 'client',
  'gig.published': 'client',
  'gig.paused': 'client',
  'gig.resumed': 'client',
  'gig.closed': 'client',
  'gig.deleted': 'client',
  'application.submitted': 'parties',
  'application.shortlisted': 'parties',
  'application.rejected': 'parties',
  'application.withdrawn': 'parties',
  'api_key.created': 'owner',
  'api_key.revoked': 'owner',
  'api_key.rotated': 'owner',
  'profile.updated': 'owner',
  'webhook_endpoint.disabled': 'owner',
  'negotiation.created': 'parties',
  'negotiation.round_created': 'parties',
  'negotiation.agreed': 'parties',
  'negotiation.cancelled': 'parties',
  'negotiation.reopened': 'parties',
  'negotiation.contact_shared': 'parties',
  'contract.created': 'parties',
  'contract.updated': 'parties',
  'contract.approved': 'parties',
  'contract.approval_requested': 'owner',
  'contract.pending_freelancer_kyc': 'parties',
  'contract.active': 'parties',
  'contract.revised': 'parties',
  'contract.expired': 'parties',
  'contract.cancelled': 'parties',
  'contract.completed': 'parties',
  'contract.disputed': 'parties',
  'contract.dispute_closed': 'parties',
  'milestone.funding': 'parties',
  'milestone.funded': 'parties',
  'milestone.payment_failed': 'parties',
  'milestone.payout_failed': 'parties',
  'milestone.payment_mismatch': 'parties',
  'milestone.released': 'parties',
  'milestone.paid': 'parties',
  'milestone.refunded': 'parties',
  'dispute.opened': 'parties',
  'dispute.responded': 'parties',
  'dispute.evidence_added': 'parties',
  'dispute.recommended': 'parties',
  'dispute.outcome_accepted': 'parties',
  'dispute.resolved': 'parties',
  'dispute.withdrawn': 'parties',
  'vouch.received': 'owner',
  'review.published': 'owner',
  'credits.granted': 'owner',
};

export const EVENT_TYPES = Object.keys(EVENT_AUDIENCE) as EventType[];
export const isEventType = (value: string): value is EventType => Object.hasOwn(EVENT_AUDIENCE, value);

/** The people an event is about, as far as the event's resource knows them. */
export interface EventSubject {
  /** The gig's client (null for an external gig, which has none). */
  clientUserId?: string | null;
  workerUserId?: string;
  ownerUserId?: string;
}

/** The users an event of this type concerns, by the table. */
export function audienceOf(type: EventType, subject: EventSubject): string[] {
  const rule = EVENT_AUDIENCE[type];
  const users =
    rule === 'owner' ? [subject.ownerUserId] : rule === 'client' ? [subject.clientUserId] : [subject.clientUserId, subject.workerUserId];
  const known = users.filter((u): u is string => typeof u === 'string');
  if (rule !== 'client' && known.length === 0) throw new Error(`an event ${type} needs its ${rule}`);
  return [...new Set(known)];
}
