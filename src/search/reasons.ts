// Match reasons: why a gig is where it is, as sentences a person can read (docs/architecture.md §8):
// `title matches "rust"`, `2 of 3 requested skills: rust, wasm`, `pays at least $80/h`,
// `posted 2 days ago`, `similar in meaning (0.82)`. Pure.
import type { FeedbackSignal } from './scoring.ts';

// Formatters by currency and digits, built once: building one costs tens of microseconds, and a
// page of 20 gigs filtered by pay builds up to 60 reasons; formatting with one costs about one.
// null for a code Intl does not know (an external gig's currency can be anything); the bound
// keeps a stream of such codes from growing it forever.
const formats = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(currency: string, digits: number): Intl.NumberFormat | null {
  const key = `${currency}:${digits}`;
  let format = formats.get(key);
  if (format !== undefined) return format;
  try {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: 2 });
  } catch {
    format = null;
  }
  if (formats.size >= 500) formats.clear();
  formats.set(key, format);
  return format;
}

export function money(cents: number, currency: string): string {
  const digits = cents % 100 ? 2 : 0;
  return currencyFormat(currency, digits)?.format(cents / 100) ?? `${(cents / 100).toFixed(digits)} ${currency}`;
}

const UNIT: Record<string, string> = { hourly: '/h', fixed: ' fixed', bounty: ' bounty', unknown: '' };

export function payReason(compensationType: string, currency: string, range: { low: number; high: number }, minimum: number): string {
  const unit = UNIT[compensationType] ?? '';
  if (range.low >= minimum) return `pays at least ${money(minimum, currency)}${unit}`;
  return `pays up to ${money(range.high, currency)}${unit}, at least ${money(minimum, currency)}${unit} asked`;
}

export function ageReason(ageDays: number): string {
  const days = Math.floor(Math.max(0, ageDays));
  if (days === 0) return 'posted today';
  if (days === 1) return 'posted yesterday';
  if (days < 60) return `posted ${days} days ago`;
  return `posted ${Math.floor(days / 30)} months ago`;
}

/**
 * Which words matched where. `hits` hold the terms found per field; `origin` maps a term to the
 * query's own words (a synonym names what it stands for). A word is reported in its best field only.
 */
export function textReasons(
  hits: { title: string[]; tags: string[]; description: string[] },
  origin: ReadonlyMap<string, string>,
): string[] {
  const seen = new Set<string>();
  const reasons: string[] = [];
  // One string per field, built as it goes: this runs for every gig of a page.
  const field = (terms: string[], lead: string) => {
    let shown = '';
    for (const term of terms) {
      const from = origin.get(term) ?? term;
      if (seen.has(term) || seen.has(from)) continue;
      seen.add(term);
      seen.add(from);
      const label = from === term ? `"${term}"` : `"${term}" (for "${from}")`;
      shown = shown ? `${shown}, ${label}` : label;
    }
    if (shown) reasons.push(lead + shown);
  };
  field(hits.title, 'title matches ');
  field(hits.tags, 'tags match ');
  field(hits.description, 'description mentions ');
  return reasons;
}

export function skillsReason(covered: string[], requested: number): string | null {
  if (!covered.length) return null;
  if (requested === 1) return `has the requested skill: ${covered[0]}`;
  return `${covered.length} of ${requested} requested skills: ${covered.join(', ')}`;
}

export function semanticReason(similarity: number): string {
  return `similar in meaning (${similarity.toFixed(2)})`;
}

export function feedbackReason(signal: FeedbackSignal | null): string | null {
  if (signal === 'up') return 'you marked this as relevant';
  if (signal === 'down') return 'you marked this as not relevant, so it ranks lower';
  return null;
}
