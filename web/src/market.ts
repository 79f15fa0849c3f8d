// The gigs, notifications and credits pages' share of the API: their types (by path, as in
// api.ts), their query keys and the words they show for the API's enums.
import type { Ok } from './api.ts';

export type Gig = Ok<'/api/gigs/{id}', 'get'>;
export type GigStatus = Gig['status'];
export type Application = Ok<'/api/gigs/{id}/applications', 'get'>['data'][number];
export type ApplicationStatus = Application['status'];
export type InboxMessage = Ok<'/api/notifications/inbox/messages', 'get'>['data'][number];
export type Channel = Ok<'/api/notifications', 'get'>['data'][number];
export type EventType = Channel['event_types'][number];
export type CreditEntry = Ok<'/api/credits/transactions', 'get'>['data'][number];

// Under 'notifications' with keys.unread, so a change to the inbox refreshes the count in the nav.
export const marketKeys = {
  gigs: ['gigs'] as const,
  gigList: (status: string) => ['gigs', 'list', status] as const,
  gig: (id: string) => ['gigs', 'one', id] as const,
  applications: (gigId: string) => ['gigs', 'applications', gigId] as const,
  inbox: ['notifications', 'inbox'] as const,
  channels: ['notifications', 'channels'] as const,
  credits: ['credits'] as const,
  balance: ['credits', 'balance'] as const,
  ledger: ['credits', 'ledger'] as const,
};

export const GIG_STATUSES: GigStatus[] = ['draft', 'open', 'paused', 'closed'];
export const GIG_STATUS_LABEL: Record<GigStatus, string> = { draft: 'Draft', open: 'Open', paused: 'Paused', closed: 'Closed' };

export const APPLICATION_STATUS_LABEL: Record<ApplicationStatus, string> = {
  submitted: 'Submitted',
  shortlisted: 'Shortlisted',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
};

/** What the platform charges for a shortlist (openapi.yaml, shortlistApplication: once per application). */
export const SHORTLIST_COST = 1;

export const CREDIT_REASON: Record<CreditEntry['reason'], string> = {
  monthly_grant: 'Monthly grant of your tier',
  operator_grant: 'Granted by an operator',
  match_deduction: 'Shortlisting an application (a match)',
  intro_deduction: 'Sharing your contact details in a negotiation (an introduction)',
};

export const EVENT_TYPE_LABEL: Record<EventType, string> = {
  'contract.created': 'A contract awaits your approval',
  'contract.updated': 'A contract changed',
  'contract.approval_requested': 'Your agent asks you to approve a contract',
  'contract.expired': 'A contract expired',
  'contract.pending_freelancer_kyc': 'Identity checks are due',
  'contract.active': 'A contract became active',
  'contract.cancelled': 'A contract was cancelled',
  'milestone.funded': 'A milestone was funded',
  'milestone.released': 'A milestone was released',
  'milestone.paid': 'A milestone was paid out',
  'milestone.payout_failed': 'A payout failed',
  'webhook_endpoint.disabled': 'A webhook endpoint was disabled',
  'review.published': 'A review of you was published',
  'dispute.opened': 'A dispute was opened',
  'dispute.responded': 'A dispute was answered',
  'dispute.outcome_accepted': "A dispute's outcome was accepted",
  'dispute.resolved': 'A dispute was resolved',
};

/** "12 credits", "1 credit", with a sign when asked: "+20 credits", "−1 credit". */
export function credits(amount: number, signed = false): string {
  const sign = signed ? (amount > 0 ? '+' : amount < 0 ? '−' : '') : amount < 0 ? '−' : '';
  const n = Math.abs(amount);
  return `${sign}${n.toLocaleString()} credit${n === 1 ? '' : 's'}`;
}

const PAGE_LABEL: Record<string, string> = {
  contracts: 'Open the contract',
  gigs: 'Open the gig',
  disputes: 'Open the dispute',
  webhooks: 'Open the endpoint',
};

/**
 * Where an inbox message's link (a dashboard page, or an API resource, under PUBLIC_URL) is shown
 * in the dashboard: a contract, gig, dispute or webhook endpoint opens its page; anything else
 * keeps the link, when it is http(s).
 */
export function dashboardLink(link: string): { href: string; label: string } | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // A page of this dashboard (`PUBLIC_URL/#/contracts/{id}`), or an API resource that has one.
  const page =
    /^#\/(contracts|gigs|disputes|webhooks)\/([^/]+)$/.exec(url.hash) ??
    /^\/api\/(contracts|gigs|disputes|webhooks)\/([^/]+)$/.exec(url.pathname);
  if (page) return { href: `#/${page[1]}/${page[2]}`, label: PAGE_LABEL[page[1]!]! };
  return { href: url.href, label: url.href };
}
