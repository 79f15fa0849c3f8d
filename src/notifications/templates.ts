// The emails an owner gets, rendered from plain data: subject, text and HTML. Pure (no clock, no
// database): callers pass names, amounts in integer minor units (cents), dates and links.
// Each email is built once as blocks, then rendered twice: verbatim as text, escaped as HTML.

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface MilestoneTerms {
  title: string;
  amountCents: number;
  /** YYYY-MM-DD, as the contract states it. */
  dueDate?: string | null;
}

export interface ContractTerms {
  /** The gig's title, which names the contract. */
  title: string;
  /** The other party's display name. */
  counterparty: string;
  /** ISO 4217; every amount of the contract is in it. */
  currency: string;
  /** The hourly rate, when the terms state one. */
  rateCents?: number | null;
  hoursPerWeek?: number | null;
  /** YYYY-MM-DD. */
  startDate?: string | null;
  payoutDelayDays: number;
  milestones: MilestoneTerms[];
}

/** The inbox's side of a notification: the email's text up to its first list or link. */
export interface RenderedNotice extends RenderedEmail {
  summary: string;
}

/**
 * Text another party wrote (titles, names), each under its label on a line of its own, so that
 * it cannot rewrite the sentence around it: `Milestone:` then `  "Design"`.
 */
export type Quotes = [label: string, value: string][];

type Block = string | { list: string[] } | { link: string; label: string } | { quotes: Quotes };

/** An amount in minor units (cents; yen for JPY) with its currency: `$1,200.00`, `€80.50`, `¥5,000`. */
export function formatMoney(cents: number, currency: string): string {
  if (!Number.isSafeInteger(cents)) throw new TypeError(`amount must be an integer number of cents, got ${cents}`);
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`; // not an ISO 4217 code Intl knows
  }
  // The currency's own minor unit: 2 digits for USD, none for JPY, 3 for KWD.
  const amount = format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  return amount.replace(/[\u00a0\u202f]/g, ' '); // ICU's no-break spaces ("KWD 12.345") as plain ones
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Thu, 3 Dec 2026, 14:05 UTC`: the same for every reader, whatever their time zone. */
export function formatUtc(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new TypeError('invalid date');
  const hh = String(date.getUTCHours()).padStart(2, '0');
  const mm = String(date.getUTCMinutes()).padStart(2, '0');
  return `${DAYS[date.getUTCDay()]}, ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${hh}:${mm} UTC`;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** For text and attribute values alike (attributes are always double-quoted here). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Titles and names in a subject stay on one line (a line break there would end the header). */
const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();
export const quoted = (value: string) => `"${oneLine(value)}"`;
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function checkLink(link: string): string {
  // Links come from PUBLIC_URL; anything else (javascript:, a bare path) is a bug upstream.
  if (!/^https?:\/\//i.test(link)) throw new TypeError(`link must be an http(s) URL, got "${link}"`);
  return link;
}

export function render(subject: string, blocks: Block[]): RenderedNotice {
  const text = blocks.map((b) => {
    if (typeof b === 'string') return b;
    if ('list' in b) return b.list.map((item) => `- ${item}`).join('\n');
    if ('quotes' in b) return b.quotes.map(([label, value]) => `${label}:\n  ${quoted(value)}`).join('\n');
    return `${b.label}: ${checkLink(b.link)}`;
  });
  const html = blocks.map((b) => {
    if (typeof b === 'string') return `<p>${escapeHtml(b)}</p>`;
    if ('list' in b) return `<ul>${b.list.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
    if ('quotes' in b)
      return `<dl>${b.quotes.map(([l, v]) => `<dt>${escapeHtml(l)}:</dt><dd>${escapeHtml(quoted(v))}</dd>`).join('')}</dl>`;
    return `<p><a href="${escapeHtml(checkLink(b.link))}">${escapeHtml(b.label)}</a></p>`;
  });
  const listOrLink = blocks.findIndex((b) => typeof b !== 'string' && !('quotes' in b));
  return {
    subject,
    summary: text.slice(0, listOrLink < 0 ? text.length : listOrLink).join('\n\n'),
    text: `${text.join('\n\n')}\n`,
    html: `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n${html.join('\n')}\n</body></html>\n`,
  };
}

function termLines(terms: ContractTerms): string[] {
  const lines: string[] = [];
  if (terms.rateCents != null) {
    const hours = terms.hoursPerWeek != null ? `, ${plural(terms.hoursPerWeek, 'hour')} a week` : '';
    lines.push(`Rate: ${formatMoney(terms.rateCents, terms.currency)} an hour${hours}`);
  } else if (terms.hoursPerWeek != null) {
    lines.push(`Hours: ${plural(terms.hoursPerWeek, 'hour')} a week`);
  }
  if (terms.startDate) lines.push(`Start: ${terms.startDate}`);
  terms.milestones.forEach((m, i) => {
    const due = m.dueDate ? `, due ${m.dueDate}` : '';
    lines.push(`Milestone ${i + 1}: ${m.title}, ${formatMoney(m.amountCents, terms.currency)}${due}`);
  });
  if (terms.milestones.length > 1) {
    const total = terms.milestones.reduce((sum, m) => sum + m.amountCents, 0);
    lines.push(`Milestones in all: ${formatMoney(total, terms.currency)}`);
  }
  lines.push(`Payout: ${plural(terms.payoutDelayDays, 'day')} after each milestone is released`);
  return lines;
}

/** Both owners must approve before anything binds; this one has not yet. */
export function contractAwaitingApproval(input: { terms: ContractTerms; approvalDeadline: Date; link: string }): RenderedEmail {
  const { terms } = input;
  return render(`Approve your contract with ${oneLine(terms.counterparty)}: ${quoted(terms.title)}`, [
    `Your agent agreed on these terms with ${terms.counterparty} for "${terms.title}". Nothing binds until both owners approve.`,
    { list: termLines(terms) },
    `Approve by ${formatUtc(input.approvalDeadline)}, or the contract expires. Only approve terms you have read and agree to.`,
    { label: 'Review the contract', link: input.link },
  ]);
}

export function approvalReminder(input: { contractTitle: string; hoursLeft: number; approvalDeadline: Date; link: string }): RenderedEmail {
  const left = plural(input.hoursLeft, 'hour');
  return render(`${left} left to approve ${quoted(input.contractTitle)}`, [
    `The contract for "${input.contractTitle}" is still waiting for your approval. It expires at ${formatUtc(input.approvalDeadline)}, in ${left}.`,
    { label: 'Review the contract', link: input.link },
  ]);
}

export function contractExpired(input: { contractTitle: string; approvalDeadline: Date; link: string }): RenderedEmail {
  return render(`Contract expired: ${quoted(input.contractTitle)}`, [
    `The contract for "${input.contractTitle}" was not approved by both owners by ${formatUtc(input.approvalDeadline)}, so it expired. Nothing binds and no money moved.`,
    { label: 'See the contract', link: input.link },
  ]);
}

/** The worker's identity checks (KYC) with the payment provider, before the client can fund. */
export function identityChecksNeeded(input: { contractTitle: string; link: string }): RenderedEmail {
  return render(`Complete your identity checks for ${quoted(input.contractTitle)}`, [
    `Both owners approved the contract for "${input.contractTitle}". Before the client can fund it and you can be paid, complete your identity checks with our payment provider.`,
    { label: 'Complete your identity checks', link: input.link },
  ]);
}
