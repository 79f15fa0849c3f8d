// What changed between two sets of terms (two negotiation rounds, or the round a contract was
// agreed from and the contract now): field by field, and milestone by milestone (added, removed,
// changed). Pure: the pages turn the result into words ("changed from $80.00").

export interface TermsMilestone {
  title: string;
  amount_cents: number;
  due_date: string | null;
}

/** The terms a round proposes and a contract holds (both shapes fit). */
export interface Terms {
  rate_cents: number | null;
  hours_per_week: number | null;
  start_date: string | null;
  payout_delay_days: number | null;
  currency: string;
  milestones: readonly TermsMilestone[];
}

export const TERM_FIELDS = ['rate_cents', 'hours_per_week', 'start_date', 'payout_delay_days', 'currency'] as const;
export type TermField = (typeof TERM_FIELDS)[number];
export type MilestoneField = 'title' | 'amount_cents' | 'due_date';

export interface FieldChange<F extends TermField = TermField> {
  field: F;
  before: Terms[F];
  after: Terms[F];
}

export type MilestoneChange =
  /** `position` is 1-based, in the newer terms for added and changed, in the older for removed. */
  | { kind: 'added'; position: number; after: TermsMilestone }
  | { kind: 'removed'; position: number; before: TermsMilestone }
  | { kind: 'changed'; position: number; before: TermsMilestone; after: TermsMilestone; fields: MilestoneField[] };

export interface Changes {
  fields: FieldChange[];
  milestones: MilestoneChange[];
}

const MILESTONE_FIELDS: MilestoneField[] = ['title', 'amount_cents', 'due_date'];

/**
 * The changes from `before` to `after`. Milestones are paired by title first (so inserting one at
 * the top does not make every later one "changed"), then the rest, in order, with one that has
 * the same amount or the same due date (a renamed milestone is "changed"; one with nothing in
 * common is another milestone); what is left over in `after` was added, in `before` removed. A
 * milestone that only moved is not a change.
 */
export function changesBetween(before: Terms, after: Terms): Changes {
  const fields: FieldChange[] = [];
  for (const field of TERM_FIELDS) {
    if (before[field] !== after[field]) fields.push({ field, before: before[field], after: after[field] } as FieldChange);
  }

  const pairOf: (number | undefined)[] = after.milestones.map(() => undefined);
  const taken = new Set<number>();
  after.milestones.forEach((m, i) => {
    const j = before.milestones.findIndex((b, k) => !taken.has(k) && b.title === m.title);
    if (j >= 0) {
      pairOf[i] = j;
      taken.add(j);
    }
  });
  after.milestones.forEach((m, i) => {
    if (pairOf[i] !== undefined) return;
    const j = before.milestones.findIndex((b, k) => !taken.has(k) && (b.amount_cents === m.amount_cents || b.due_date === m.due_date));
    if (j >= 0) {
      pairOf[i] = j;
      taken.add(j);
    }
  });

  const milestones: MilestoneChange[] = [];
  after.milestones.forEach((m, i) => {
    const j = pairOf[i];
    if (j === undefined) {
      milestones.push({ kind: 'added', position: i + 1, after: m });
      return;
    }
    const old = before.milestones[j]!;
    const differ = MILESTONE_FIELDS.filter((f) => old[f] !== m[f]);
    if (differ.length > 0) milestones.push({ kind: 'changed', position: i + 1, before: old, after: m, fields: differ });
  });
  before.milestones.forEach((m, k) => {
    if (!taken.has(k)) milestones.push({ kind: 'removed', position: k + 1, before: m });
  });
  return { fields, milestones };
}

export const hasChanges = (changes: Changes) => changes.fields.length > 0 || changes.milestones.length > 0;

/** The change of one field, if it changed. */
export function fieldChange<F extends TermField>(changes: Changes, field: F): FieldChange<F> | undefined {
  return changes.fields.find((c) => c.field === field) as FieldChange<F> | undefined;
}
