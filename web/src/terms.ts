// Terms in words, for the rounds of a negotiation and what changed between two sets of terms.
import type { Changes, MilestoneChange, TermField, Terms, TermsMilestone } from './changes.ts';
import { day, money } from './format.ts';

export const TERM_LABEL: Record<TermField, string> = {
  rate_cents: 'Rate',
  hours_per_week: 'Hours per week',
  start_date: 'Start date',
  payout_delay_days: 'Payout delay',
  currency: 'Currency',
};

/** One term's value in words; money in `currency` (the terms' own). */
export function termText(field: TermField, value: string | number | null, currency: string): string {
  if (value === null) return 'none stated';
  switch (field) {
    case 'rate_cents':
      return `${money(Number(value), currency)} per hour`;
    case 'start_date':
      return day(String(value));
    case 'payout_delay_days':
      return `${value} day${value === 1 ? '' : 's'} after each release`;
    default:
      return String(value);
  }
}

export const milestoneText = (m: TermsMilestone, currency: string) =>
  `“${m.title}”, ${money(m.amount_cents, currency)}${m.due_date ? `, due ${day(m.due_date)}` : ''}`;

const MILESTONE_FIELD_LABEL = { title: 'title', amount_cents: 'amount', due_date: 'due date' } as const;

function milestoneFieldText(field: keyof typeof MILESTONE_FIELD_LABEL, m: TermsMilestone, currency: string): string {
  if (field === 'title') return `“${m.title}”`;
  if (field === 'amount_cents') return money(m.amount_cents, currency);
  return m.due_date ? day(m.due_date) : 'none';
}

/** A milestone change in one sentence, e.g. "Milestone 1 “Parser”: amount $1,300.00, changed from $1,200.00." */
export function milestoneChangeText(change: MilestoneChange, before: Terms, after: Terms): string {
  if (change.kind === 'added') return `Milestone ${change.position} added: ${milestoneText(change.after, after.currency)}.`;
  if (change.kind === 'removed') return `Milestone ${change.position} removed: ${milestoneText(change.before, before.currency)}.`;
  const parts = change.fields.map(
    (f) =>
      `${MILESTONE_FIELD_LABEL[f]} ${milestoneFieldText(f, change.after, after.currency)}, changed from ${milestoneFieldText(f, change.before, before.currency)}`,
  );
  return `Milestone ${change.position} “${change.after.title}”: ${parts.join('; ')}.`;
}

/** Every change in sentences, terms first, then milestones. */
export function changeSentences(changes: Changes, before: Terms, after: Terms): string[] {
  return [
    ...changes.fields.map(
      (c) =>
        `${TERM_LABEL[c.field]}: ${termText(c.field, c.after, after.currency)}, changed from ${termText(c.field, c.before, before.currency)}.`,
    ),
    ...changes.milestones.map((c) => milestoneChangeText(c, before, after)),
  ];
}
