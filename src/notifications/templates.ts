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
  /** The other party's display name, and their role in the contract. */
  counterparty: string;
  counterpartyRole: 'client' | 'worker';
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

/** A list item, with what another party wrote on its own line below it when there is some. */
type Item = string | { text: string; quote: string };
export type Block = string | { list: Item[] } | { link: string; label: string } | { quotes: Quotes };

/** The quotes under their labels: `Contract:` and `  "Rust log parser"`, and so on. */
export const quotes = (...pairs: Quotes): Block => ({ quotes: pairs });
/** `Client` or `Worker`, the label of a party's name. */
export const roleLabel = (role: 'client' | 'worker') => (role === 'client' ? 'Client' : 'Worker');

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
    if ('list' in b)
      return b.list.map((item) => (typeof item === 'string' ? `- ${item}` : `- ${item.text}\n    ${quoted(item.quote)}`)).join('\n');
    if ('quotes' in b) return b.quotes.map(([label, value]) => `${label}:\n  ${quoted(value)}`).join('\n');
    return `${b.label}: ${checkLink(b.link)}`;
  });
  const html = blocks.map((b) => {
    if (typeof b === 'string') return `<p>${escapeHtml(b)}</p>`;
    if ('list' in b) {
      const items = b.list.map((item) =>
        typeof item === 'string' ? escapeHtml(item) : `${escapeHtml(item.text)}<br>${escapeHtml(quoted(item.quote))}`,
      );
      return `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`;
    }
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

function termLines(terms: ContractTerms): Item[] {
  const lines: Item[] = [];
  if (terms.rateCents != null) {
    const hours = terms.hoursPerWeek != null ? `, ${plural(terms.hoursPerWeek, 'hour')} a week` : '';
    lines.push(`Rate: ${formatMoney(terms.rateCents, terms.currency)} an hour${hours}`);
  } else if (terms.hoursPerWeek != null) {
    lines.push(`Hours: ${plural(terms.hoursPerWeek, 'hour')} a week`);
  }
  if (terms.startDate) lines.push(`Start: ${terms.startDate}`);
  terms.milestones.forEach((m, i) => {
    const due = m.dueDate ? `, due ${m.dueDate}` : '';
    lines.push({ text: `Milestone ${i + 1}: ${formatMoney(m.amountCents, terms.currency)}${due}`, quote: m.title });
  });
  if (terms.milestones.length > 1) {
    const total = terms.milestones.reduce((sum, m) => sum + m.amountCents, 0);
    lines.push(`Milestones in all: ${formatMoney(total, terms.currency)}`);
  }
  lines.push(`Payout: ${plural(terms.payoutDelayDays, 'day')} after each milestone is released`);
  return lines;
}

/** Both owners must approve before anything binds; this one has not yet. */
export function contractAwaitingApproval(input: { terms: ContractTerms; approvalDeadline: Date; link: string }): RenderedNotice {
  const { terms } = input;
  return render(`Approve your contract: ${quoted(terms.title)}`, [
    `Your agent agreed on the terms below with the ${terms.counterpartyRole}. Nothing binds until both owners approve.`,
    quotes(['Contract', terms.title], [roleLabel(terms.counterpartyRole), terms.counterparty]),
    { list: termLines(terms) },
    `Approve by ${formatUtc(input.approvalDeadline)}, or the contract expires. Only approve terms you have read and agree to.`,
    { label: 'Review the contract', link: input.link },
  ]);
}

/** An agent asked to approve for an owner whose policy is owner_confirms: only the owner can. */
export function approvalRequested(input: { terms: ContractTerms; approvalDeadline: Date; link: string }): RenderedNotice {
  const { terms } = input;
  return render(`Your agent asks you to approve: ${quoted(terms.title)}`, [
    `One of your agents asked to approve the contract below with the ${terms.counterpartyRole}. Your approval policy says only you approve contracts, so nothing is approved until you do.`,
    quotes(['Contract', terms.title], [roleLabel(terms.counterpartyRole), terms.counterparty]),
    { list: termLines(terms) },
    `Approve by ${formatUtc(input.approvalDeadline)}, or the contract expires. Only approve terms you have read and agree to.`,
    { label: 'Review and approve', link: input.link },
  ]);
}

export function approvalReminder(input: {
  contractTitle: string;
  hoursLeft: number;
  approvalDeadline: Date;
  link: string;
}): RenderedNotice {
  const left = plural(input.hoursLeft, 'hour');
  return render(`${left} left to approve ${quoted(input.contractTitle)}`, [
    `The contract below is still waiting for your approval. It expires at ${formatUtc(input.approvalDeadline)}, in ${left}.`,
    quotes(['Contract', input.contractTitle]),
    { label: 'Review the contract', link: input.link },
  ]);
}

export function contractExpired(input: { contractTitle: string; approvalDeadline: Date; link: string }): RenderedNotice {
  return render(`Contract expired: ${quoted(input.contractTitle)}`, [
    `The contract below was not approved by both owners by ${formatUtc(input.approvalDeadline)}, so it expired. Nothing binds and no money moved.`,
    quotes(['Contract', input.contractTitle]),
    { label: 'See the contract', link: input.link },
  ]);
}

/** The worker's identity checks (KYC) with the payment provider, before the client can fund. */
export function identityChecksNeeded(input: { contractTitle: string; link: string }): RenderedNotice {
  return render(`Complete your identity checks for ${quoted(input.contractTitle)}`, [
    'Both owners approved the contract below. Before the client can fund it and you can be paid, complete your identity checks with our payment provider.',
    quotes(['Contract', input.contractTitle]),
    { label: 'Complete your identity checks', link: input.link },
  ]);
}
