// The webhooks pages' share of the API: their types (by path, as in api.ts), their query keys, the
// event catalog the endpoints can subscribe to, and the words they show for the API's enums.
import type { webhooks } from '../../src/generated/api.d.ts';
import type { Ok } from './api.ts';

export type WebhookEndpoint = Ok<'/api/webhooks/{id}', 'get'>;
export type WebhookDelivery = Ok<'/api/webhooks/{id}/deliveries', 'get'>['data'][number];
export type DisabledReason = NonNullable<WebhookEndpoint['disabled_reason']>;
/** A type of the event catalog (the spec's `webhooks:`). */
export type WebhookEventType = keyof webhooks;

/** Attempts, retries and redeliveries land behind the page's back: an endpoint's page reads it and its log again this often. */
export const REFRESH_MS = 3000;

export const webhookKeys = {
  all: ['webhooks'] as const,
  list: ['webhooks', 'list'] as const,
  endpoint: (id: string) => ['webhooks', 'one', id] as const,
  deliveries: (id: string) => ['webhooks', 'deliveries', id] as const,
};

// Every type of the catalog, by its resource. A Record, so that a type the spec adds or drops and
// this list does not fails the typecheck.
const CATALOG: Record<WebhookEventType, true> = {
  'gig.created': true,
  'gig.updated': true,
  'gig.published': true,
  'gig.paused': true,
  'gig.resumed': true,
  'gig.closed': true,
  'gig.deleted': true,
  'application.submitted': true,
  'application.shortlisted': true,
  'application.rejected': true,
  'application.withdrawn': true,
  'api_key.created': true,
  'api_key.revoked': true,
  'api_key.rotated': true,
  'profile.updated': true,
  'webhook_endpoint.disabled': true,
  'negotiation.created': true,
  'negotiation.round_created': true,
  'negotiation.agreed': true,
  'negotiation.cancelled': true,
  'negotiation.reopened': true,
  'negotiation.contact_shared': true,
  'contract.created': true,
  'contract.updated': true,
  'contract.approved': true,
  'contract.approval_requested': true,
  'contract.pending_freelancer_kyc': true,
  'contract.active': true,
  'contract.revised': true,
  'contract.expired': true,
  'contract.cancelled': true,
  'contract.completed': true,
  'contract.disputed': true,
  'contract.dispute_closed': true,
  'milestone.funding': true,
  'milestone.funded': true,
  'milestone.payment_failed': true,
  'milestone.payout_failed': true,
  'milestone.payment_mismatch': true,
  'milestone.released': true,
  'milestone.paid': true,
  'milestone.refunded': true,
  'dispute.opened': true,
  'dispute.responded': true,
  'dispute.evidence_added': true,
  'dispute.recommended': true,
  'dispute.outcome_accepted': true,
  'dispute.resolved': true,
  'dispute.withdrawn': true,
  'vouch.received': true,
  'review.published': true,
  'credits.granted': true,
};

export const WEBHOOK_EVENT_TYPES = Object.keys(CATALOG) as WebhookEventType[];

/** The catalog's types grouped by resource (`contract`, `milestone`, …), in catalog order. */
export const EVENT_GROUPS: { resource: string; types: WebhookEventType[] }[] = [];
for (const type of WEBHOOK_EVENT_TYPES) {
  const resource = type.slice(0, type.indexOf('.'));
  const group = EVENT_GROUPS.find((g) => g.resource === resource);
  if (group) group.types.push(type);
  else EVENT_GROUPS.push({ resource, types: [type] });
}

export const RESOURCE_LABEL: Record<string, string> = {
  gig: 'Gigs',
  application: 'Applications',
  api_key: 'API keys',
  profile: 'Profile',
  webhook_endpoint: 'Webhook endpoints',
  negotiation: 'Negotiations',
  contract: 'Contracts',
  milestone: 'Milestones',
  dispute: 'Disputes',
  vouch: 'Vouches',
  review: 'Reviews',
  credits: 'Credits',
};

export const DISABLED_REASON_LABEL: Record<DisabledReason, string> = {
  gone: 'the receiver answered 410 Gone',
  failing: 'every attempt failed for 5 days',
  manual: 'disabled by you',
};

/** "Enabled", or "Disabled: why". */
export const endpointState = (e: Pick<WebhookEndpoint, 'enabled' | 'disabled_reason'>) =>
  e.enabled ? 'Enabled' : `Disabled: ${e.disabled_reason ? DISABLED_REASON_LABEL[e.disabled_reason] : 'no reason given'}`;

/** "All events", or the chosen types. */
export const eventTypesText = (types: readonly string[] | null) => (types === null ? 'All events' : types.join(', '));
