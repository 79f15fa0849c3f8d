// What each notifiable event tells each owner: one table from event type to message (title, body,
// link under PUBLIC_URL) and email (the templates of src/notifications/: templates.ts, money.ts).
// Pure but for its input: the caller looks up the names the event's data lacks (the gig's title,
// the other party).
import type { ContractView } from '../presenters/contracts.ts';
import type { ContractReviewView } from '../presenters/reviews.ts';
import type { DisputeView } from '../presenters/disputes.ts';
import type { NotifiableEventType } from '../domain/notifications.ts';
import * as templates from '../notifications/templates.ts';
import type { RenderedEmail, RenderedNotice } from '../notifications/templates.ts';
import * as money from '../notifications/money.ts';
import { dashboardContractUrl, dashboardDisputeUrl, dashboardWebhookUrl } from '../dashboard/links.ts';

type MilestoneView = ContractView['milestones'][number];

export interface MessageInput {
  publicUrl: string;
  /** The event's data: the contract (contract.*), the milestone (milestone.*), the review (review.*) or the endpoint (webhook_endpoint.*) as the API shows it. */
  data: unknown;
  /** Who the message is for. */
  recipientId: string;
  /** The contract's gig title (empty for an event about no contract). */
  contractTitle: string;
  /** The other party's display name (empty for an event about no contract). */
  counterparty: string;
  /** The contract (for milestone events, the milestone's contract), when known. */
  contract?: ContractView | undefined;
  /** Who acted (the event's actor); null for the platform: a job, or a dispute's settlement. */
  actorUserId: string | null;
}

export interface Notification {
  title: string;
  body: string;
  link: string;
  email: RenderedEmail;
}

/** A quote of the review's text: at most 200 characters, on one line (the quote block puts it on one). */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

// Every message is a rendered notice (src/notifications/): the inbox body is its text up to its
// first list or link, which quotes what the other party wrote on lines of its own. Every link is
// a page of the owners' dashboard (src/dashboard/links.ts), never raw JSON.
const fromNotice = (notice: RenderedNotice, link: string, more = ''): Notification => ({
  title: notice.subject,
  body: notice.summary + more,
  link,
  email: { subject: notice.subject, text: notice.text, html: notice.html },
});

/** A message of a sentence, then the quotes, then the link, for the moments without a template of their own. */
function notice(title: string, said: string, quotes: templates.Quotes, link: string, label = 'See the contract'): Notification {
  return fromNotice(templates.render(title, [said, templates.quotes(...quotes), { label, link }]), link);
}

type Role = 'client' | 'worker';
const otherRole = (role: Role): Role => (role === 'client' ? 'worker' : 'client');
/** The recipient's role in the contract the event is about. */
const roleIn = (i: MessageInput, c: { client_user_id: string }): Role => (i.recipientId === c.client_user_id ? 'client' : 'worker');
/** The contract's title, and the other party's name under their role. */
const contractQuotes = (i: MessageInput, counterpartyRole: Role): templates.Quotes => [
  ['Contract', i.contractTitle],
  [templates.roleLabel(counterpartyRole), i.counterparty],
];

function awaitingApproval(input: MessageInput, c: ContractView, render = templates.contractAwaitingApproval): Notification | null {
  if (c.status !== 'pending_owner_approval' || !c.approval_deadline) return null;
  const link = dashboardContractUrl(input.publicUrl, c.id);
  const deadline = new Date(c.approval_deadline);
  const email = render({
    terms: {
      title: input.contractTitle,
      counterparty: input.counterparty,
      counterpartyRole: otherRole(roleIn(input, c)),
      currency: c.currency,
      rateCents: c.rate_cents,
      hoursPerWeek: c.hours_per_week,
      startDate: c.start_date,
      payoutDelayDays: c.payout_delay_days,
      milestones: c.milestones.map((m) => ({ title: m.title, amountCents: m.amount_cents, dueDate: m.due_date })),
    },
    approvalDeadline: deadline,
    link,
  });
  return fromNotice(email, link, `\n\nApprove by ${templates.formatUtc(deadline)}, or the contract expires.`);
}

function milestoneNotice(input: MessageInput, m: MilestoneView): money.MilestoneNotice {
  return {
    role: input.recipientId === input.contract?.client_user_id ? 'client' : 'worker',
    contractTitle: input.contractTitle,
    milestoneTitle: m.title,
    amountCents: m.amount_cents,
    refundedCents: m.refunded_cents,
    currency: m.currency,
    link: dashboardContractUrl(input.publicUrl, m.contract_id),
  };
}

const REASONS: Record<DisputeView['reason'], string> = {
  work_not_delivered: 'the work was not delivered',
  work_not_as_agreed: 'the work is not as agreed',
  payment_withheld: 'payment is withheld',
  scope_disagreement: 'the scope is disputed',
  other: 'another reason',
};

function outcomeText(a: { outcome: string; worker_share_percent: number | null }): string {
  if (a.outcome === 'split') return `a split, ${a.worker_share_percent}% to the worker and the rest back to the client`;
  return a.outcome === 'release' ? 'release to the worker' : 'a refund to the client';
}

/** How the resolution divides the disputed money, in the contract's currency. */
function divided(i: MessageInput, d: DisputeView): string {
  const parts = d.resolution?.milestones ?? [];
  const sum = (key: 'worker_cents' | 'refund_cents') => parts.reduce((total, m) => total + m[key], 0);
  const fmt = (cents: number) => templates.formatMoney(cents, i.contract?.currency ?? 'USD');
  const [worker, refund] = [sum('worker_cents'), sum('refund_cents')];
  return `Of the disputed ${fmt(worker + refund)}, ${fmt(worker)} goes to the worker and ${fmt(refund)} back to the client; the refunds and payouts follow.`;
}

/** A dispute message, or null when `concerns` says this recipient (by their role) is not the one to tell. */
function disputeNotice(
  i: MessageInput,
  concerns: (d: DisputeView, role: Role) => boolean,
  text: (d: DisputeView, role: Role) => { title: string; said: string },
): Notification | null {
  const d = i.data as DisputeView;
  const role: Role = i.recipientId === d.opener_user_id ? d.opener_role : otherRole(d.opener_role);
  if (!concerns(d, role)) return null;
  const { title, said } = text(d, role);
  return notice(title, said, contractQuotes(i, otherRole(role)), dashboardDisputeUrl(i.publicUrl, d.id), 'See the dispute');
}

/** The other party's acceptance is newer than the recipient's (or the recipient has none): theirs to answer. */
function othersAcceptanceIsNewer(d: DisputeView, role: Role): boolean {
  const mine = d.acceptances[role];
  const theirs = d.acceptances[otherRole(role)];
  return theirs !== null && (mine === null || Date.parse(theirs.accepted_at) > Date.parse(mine.accepted_at));
}

/**
 * The table: for each notifiable type, the message for one recipient, or null when this event has
 * nothing for them (a contract updated but not awaiting approval; the KYC step, for the client).
 */
export const MESSAGES: Record<NotifiableEventType, (input: MessageInput) => Notification | null> = {
  'contract.created': (i) => awaitingApproval(i, i.data as ContractView),
  'contract.updated': (i) => awaitingApproval(i, i.data as ContractView),
  'contract.approval_requested': (i) => awaitingApproval(i, i.data as ContractView, templates.approvalRequested),
  'contract.expired': (i) => {
    const c = i.data as ContractView;
    const link = dashboardContractUrl(i.publicUrl, c.id);
    const deadline = new Date(c.approval_deadline ?? c.expired_at ?? c.updated_at);
    return fromNotice(templates.contractExpired({ contractTitle: i.contractTitle, approvalDeadline: deadline, link }), link);
  },
  'contract.pending_freelancer_kyc': (i) => {
    const c = i.data as ContractView;
    if (i.recipientId !== c.worker_user_id) return null; // the worker's step; the client waits
    const link = dashboardContractUrl(i.publicUrl, c.id);
    return fromNotice(templates.identityChecksNeeded({ contractTitle: i.contractTitle, link }), link);
  },
  'contract.active': (i) => {
    const c = i.data as ContractView;
    const other = otherRole(roleIn(i, c));
    const said = `Your contract with the ${other} is active: the client can fund its milestones.`;
    return notice(
      `Contract active: ${templates.quoted(i.contractTitle)}`,
      said,
      contractQuotes(i, other),
      dashboardContractUrl(i.publicUrl, c.id),
    );
  },
  'contract.cancelled': (i) => {
    const c = i.data as ContractView;
    const other = otherRole(roleIn(i, c));
    const said = `Your contract with the ${other} was cancelled.`;
    return notice(
      `Contract cancelled: ${templates.quoted(i.contractTitle)}`,
      said,
      contractQuotes(i, other),
      dashboardContractUrl(i.publicUrl, c.id),
    );
  },
  'milestone.funded': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromNotice(money.milestoneFunded(n), n.link);
  },
  'milestone.released': (i) => {
    const m = i.data as MilestoneView;
    const n = milestoneNotice(i, m);
    // Only a dispute's settlement releases without an actor; it pays the worker's part at once.
    const payoutDueAt = m.payout_due_at ? new Date(m.payout_due_at) : null;
    return fromNotice(money.milestoneReleased({ ...n, payoutDueAt, byResolution: i.actorUserId === null }), n.link);
  },
  'milestone.paid': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromNotice(money.milestonePaid(n), n.link);
  },
  'milestone.payout_failed': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromNotice(money.payoutFailed(n), n.link);
  },
  'webhook_endpoint.disabled': (i) => {
    const e = i.data as { id: string; url: string; disabled_reason: string | null };
    const link = dashboardWebhookUrl(i.publicUrl, e.id);
    const why =
      e.disabled_reason === 'gone'
        ? 'it answered 410 Gone, which asks for no more deliveries'
        : 'every delivery attempt to it failed for five days';
    const said = `Deliveries to the endpoint below have stopped: ${why}. Fix the receiver, then enable the endpoint again (on its page, or PATCH with enabled: true) and replay what it missed.`;
    return notice(`Webhook endpoint disabled: ${e.url}`, said, [['Endpoint', e.url]], link, 'See the endpoint');
  },
  'review.published': (i) => {
    const r = i.data as ContractReviewView;
    const link = dashboardContractUrl(i.publicUrl, r.contract_id); // its page shows the reviews
    const quotes: templates.Quotes = [...contractQuotes(i, r.author_role), ['Review', excerpt(r.text)]];
    return notice(
      `New review: ${r.rating}/5 for ${templates.quoted(i.contractTitle)}`,
      `The ${r.author_role} rated you ${r.rating} of 5.`,
      quotes,
      link,
      'See the review',
    );
  },
  'dispute.opened': (i) =>
    disputeNotice(
      i,
      (d, role) => role !== d.opener_role,
      (d) => ({
        title: `Dispute opened: ${templates.quoted(i.contractTitle)}`,
        said: `The ${d.opener_role} opened a dispute on your contract: ${REASONS[d.reason]}. No payout of the contract is made while it is open. Respond with your side and add evidence.`,
      }),
    ),
  'dispute.responded': (i) =>
    disputeNotice(
      i,
      (d, role) => role === d.opener_role,
      (_d, role) => ({
        title: `Dispute answered: ${templates.quoted(i.contractTitle)}`,
        said: `The ${otherRole(role)} responded to your dispute. You can now ask for an advisory recommendation, and accept an outcome.`,
      }),
    ),
  'dispute.outcome_accepted': (i) =>
    disputeNotice(i, othersAcceptanceIsNewer, (d, role) => ({
      title: `Outcome proposed: ${templates.quoted(i.contractTitle)}`,
      said: `The ${otherRole(role)} accepts ${outcomeText(d.acceptances[otherRole(role)]!)} for the dispute. Accept the same outcome to resolve it, or propose another.`,
    })),
  'dispute.resolved': (i) =>
    disputeNotice(
      i,
      () => true,
      (d, role) => ({
        title: `Dispute resolved: ${templates.quoted(i.contractTitle)}`,
        said: `You and the ${otherRole(role)} accepted ${d.resolution ? outcomeText(d.resolution) : 'the same outcome'} for the dispute. ${divided(i, d)}`,
      }),
    ),
};

/** The approval reminder, `msLeft` before the deadline. */
export function approvalReminderMessage(input: {
  publicUrl: string;
  contractId: string;
  contractTitle: string;
  deadline: Date;
  msLeft: number;
}): Notification {
  const link = dashboardContractUrl(input.publicUrl, input.contractId);
  const hoursLeft = Math.max(1, Math.ceil(input.msLeft / 3_600_000));
  return fromNotice(
    templates.approvalReminder({ contractTitle: input.contractTitle, hoursLeft, approvalDeadline: input.deadline, link }),
    link,
  );
}
