// What each notifiable event tells each owner: one table from event type to message (title, body,
// link under PUBLIC_URL) and email (the templates of src/notifications/templates.ts). Pure but for
// its input: the caller looks up the names the event's data lacks (the gig's title, the other party).
import type { ContractView } from '../presenters/contracts.ts';
import type { NotifiableEventType } from '../domain/notifications.ts';
import * as templates from '../notifications/templates.ts';
import type { RenderedEmail } from '../notifications/templates.ts';

type MilestoneView = ContractView['milestones'][number] & { failure_reason?: string | null };

export interface MessageInput {
  publicUrl: string;
  /** The event's data: the contract (contract.*) or the milestone (milestone.*) as the API shows it. */
  data: unknown;
  /** Who the message is for. */
  recipientId: string;
  /** The contract's gig title. */
  contractTitle: string;
  /** The other party's display name. */
  counterparty: string;
  /** The contract (for milestone events, the milestone's contract), when known. */
  contract?: ContractView | undefined;
}

export interface Notification {
  title: string;
  body: string;
  link: string;
  email: RenderedEmail;
}

export const contractLink = (publicUrl: string, contractId: string) => `${publicUrl}/api/contracts/${contractId}`;

/** The email's first paragraph, as the inbox body (one line, no link: the message has its own). */
function summary(email: RenderedEmail): string {
  return email.text.split('\n\n')[0]!.replace(/\s+/g, ' ').trim();
}

const fromEmail = (email: RenderedEmail, link: string, body?: string): Notification => ({
  title: email.subject,
  body: body ?? summary(email),
  link,
  email,
});

function awaitingApproval(input: MessageInput, c: ContractView): Notification | null {
  if (c.status !== 'pending_owner_approval' || !c.approval_deadline) return null;
  const link = contractLink(input.publicUrl, c.id);
  const deadline = new Date(c.approval_deadline);
  const email = templates.contractAwaitingApproval({
    terms: {
      title: input.contractTitle,
      counterparty: input.counterparty,
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
  return fromEmail(email, link, `${summary(email)} Approve by ${templates.formatUtc(deadline)}, or the contract expires.`);
}

function milestoneNotice(input: MessageInput, m: MilestoneView) {
  return {
    contractTitle: input.contractTitle,
    milestoneTitle: m.title,
    amountCents: m.amount_cents,
    currency: m.currency,
    link: contractLink(input.publicUrl, m.contract_id),
  };
}

/**
 * The table: for each notifiable type, the message for one recipient, or null when this event has
 * nothing for them (a contract updated but not awaiting approval; the KYC step, for the client).
 */
export const MESSAGES: Record<NotifiableEventType, (input: MessageInput) => Notification | null> = {
  'contract.created': (i) => awaitingApproval(i, i.data as ContractView),
  'contract.updated': (i) => awaitingApproval(i, i.data as ContractView),
  'contract.expired': (i) => {
    const c = i.data as ContractView;
    const link = contractLink(i.publicUrl, c.id);
    const deadline = new Date(c.approval_deadline ?? c.expired_at ?? c.updated_at);
    return fromEmail(templates.contractExpired({ contractTitle: i.contractTitle, approvalDeadline: deadline, link }), link);
  },
  'contract.pending_freelancer_kyc': (i) => {
    const c = i.data as ContractView;
    if (i.recipientId !== c.worker_user_id) return null; // the worker's step; the client waits
    const link = contractLink(i.publicUrl, c.id);
    return fromEmail(templates.identityChecksNeeded({ contractTitle: i.contractTitle, link }), link);
  },
  'contract.active': (i) => {
    const c = i.data as ContractView;
    const link = contractLink(i.publicUrl, c.id);
    const title = `Contract active: "${i.contractTitle}"`;
    const body = `The contract for "${i.contractTitle}" with ${i.counterparty} is active: the client can fund its milestones.`;
    return { title, body, link, email: plainEmail(title, body, link) };
  },
  'contract.cancelled': (i) => {
    const c = i.data as ContractView;
    const link = contractLink(i.publicUrl, c.id);
    const title = `Contract cancelled: "${i.contractTitle}"`;
    const body = `The contract for "${i.contractTitle}" with ${i.counterparty} was cancelled.`;
    return { title, body, link, email: plainEmail(title, body, link) };
  },
  'milestone.funded': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromEmail(templates.milestoneFunded(n), n.link);
  },
  'milestone.released': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromEmail(templates.milestoneReleased({ ...n, payoutDelayDays: i.contract?.payout_delay_days ?? 0 }), n.link);
  },
  'milestone.paid': (i) => {
    const n = milestoneNotice(i, i.data as MilestoneView);
    return fromEmail(templates.milestonePaid(n), n.link);
  },
  'milestone.payout_failed': (i) => {
    const m = i.data as MilestoneView;
    const n = milestoneNotice(i, m);
    return fromEmail(templates.payoutFailed({ ...n, reason: m.failure_reason ?? null }), n.link);
  },
};

/** The approval reminder, `msLeft` before the deadline. */
export function approvalReminderMessage(input: {
  publicUrl: string;
  contractId: string;
  contractTitle: string;
  deadline: Date;
  msLeft: number;
}): Notification {
  const link = contractLink(input.publicUrl, input.contractId);
  const hoursLeft = Math.max(1, Math.ceil(input.msLeft / 3_600_000));
  return fromEmail(
    templates.approvalReminder({ contractTitle: input.contractTitle, hoursLeft, approvalDeadline: input.deadline, link }),
    link,
  );
}

/** For the two moments the templates have no email of their own: the message as text, and as escaped HTML. */
function plainEmail(subject: string, body: string, link: string): RenderedEmail {
  const html = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${templates.escapeHtml(subject)}</title></head>\n<body>\n<p>${templates.escapeHtml(body)}</p>\n<p><a href="${templates.escapeHtml(link)}">See the contract</a></p>\n</body></html>\n`;
  return { subject, text: `${body}\n\nSee the contract: ${link}\n`, html };
}
