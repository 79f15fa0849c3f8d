// Compensation read out of free text ("$80/hr", "€2,000 fixed", "USD 5k", "$250 bounty",
// "$60-80/h"). Pure. Only amounts that name a currency (symbol or ISO code) count, so "80 hours" or
// "issue #500" are never read as pay; an amount per year, month, week or day is no gig type here, so
// it gives `unknown` rather than a guess.
import type { CompensationType } from '../domain/gig.ts';

export interface Compensation {
  type: CompensationType;
  minCents: number | null;
  maxCents: number | null;
  /** The currency named in the text, or undefined when the text names none. */
  currency: string | undefined;
}

export interface ParseOptions {
  /** What "$" alone means when the source's currency is another dollar (CAD, AUD, ...); else USD. */
  defaultCurrency?: string;
  /** The type of an amount with no word around it saying what it is: `fixed`, or `bounty` on a bounty board. */
  bareType?: 'fixed' | 'bounty';
}

const SYMBOLS: Record<string, string> = {
  US$: 'USD',
  A$: 'AUD',
  AU$: 'AUD',
  C$: 'CAD',
  CA$: 'CAD',
  NZ$: 'NZD',
  S$: 'SGD',
  HK$: 'HKD',
  R$: 'BRL',
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
};
const DOLLARS = new Set(['USD', 'AUD', 'CAD', 'NZD', 'SGD', 'HKD']);
const CODES = [
  'USD',
  'EUR',
  'GBP',
  'CAD',
  'AUD',
  'NZD',
  'CHF',
  'JPY',
  'INR',
  'SGD',
  'HKD',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'BRL',
  'MXN',
  'ZAR',
  'KRW',
  'CNY',
  'USDC',
  'USDT',
];
/** Currencies without minor units: their amounts are stored as is. */
const ZERO_DECIMAL = new Set(['JPY', 'KRW']);
/** Stablecoins are paid as dollars. */
const CODE_ALIASES: Record<string, string> = { USDC: 'USD', USDT: 'USD' };
/** What a native gig may state (NullableAmountCents in openapi.yaml): a larger figure is no gig's pay. */
const MAX_CENTS = 100_000_000;

const esc = (s: string) => s.replace(/[$]/g, '\\$');
const SYM = `(?:${Object.keys(SYMBOLS)
  .sort((a, b) => b.length - a.length)
  .map(esc)
  .join('|')})`;
const CODE = `(?:${CODES.join('|')})`;
// 2,000 / 2,000.50 / 2.000 / 2.000,50 / 2000 / 2000.5 — then an optional k or m multiplier.
const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+(?:[.,]\d{1,2})?)(?!\d)`;
const MULT = String.raw`(?:\s?(?:k|K|m|M)(?![A-Za-z]))?`;
const AMOUNT = `(${NUM})(${MULT})`;
const SEP = String.raw`\s*(?:-|–|—|to)\s*`;

// A currency then an amount ("$80", "USD 5k"), or an amount then a currency ("500 €", "5k EUR").
const MONEY = new RegExp(
  String.raw`(?<![A-Za-z0-9])(?:(${SYM})\s?|(${CODE})\s?)${AMOUNT}|(?<![A-Za-z0-9.,$€£¥₹₩])${AMOUNT}\s?(?:(${SYM})|(${CODE})(?![A-Za-z]))`,
  'gi',
);
// After a mention: "-80", " to $80", "–100k".
const UPPER_AFTER = new RegExp(String.raw`^${SEP}(?:${SYM}\s?)?${AMOUNT}(?:\s?${CODE}(?![A-Za-z]))?`, 'i');
// Before a suffixed mention ("60-80 USD"): "60-".
const LOWER_BEFORE = new RegExp(String.raw`(?<![\d.,])${AMOUNT}${SEP}$`, 'i');

type Period = 'hourly' | 'periodic';
type Kind = Period | 'fixed' | 'bounty';

// Right after the amount: "/hr", " per hour", " an hour", "/yr", " a month".
const UNIT_AFTER: [RegExp, Period][] = [
  [/^\s*(?:\/\s*|per\s+|an?\s+|p\/)(?:h|hr|hrs|hour)\b/i, 'hourly'],
  [/^\s*(?:\/\s*|per\s+|an?\s+|p\/)(?:y|yr|year|annum|mo|month|wk|week|d|day)\b/i, 'periodic'],
];
const WORDS: [RegExp, Kind][] = [
  [/\bbount(?:y|ies)\b|\breward\b/i, 'bounty'],
  [/\bhourly\b|\bper hour\b/i, 'hourly'],
  [/\bfixed\b|\bflat\b|\bbudget\b|\bone[- ]?time\b|\bper project\b|\bin total\b/i, 'fixed'],
  [
    /\bsalary\b|\bannual(?:ly)?\b|\byearly\b|\bmonthly\b|\bweekly\b|\bdaily\b|\bday rate\b|\bp\.a\.|\bper (?:year|annum|month|week|day)\b/i,
    'periodic',
  ],
];

interface Mention {
  currency: string;
  min: number;
  max: number;
  kind: Kind | undefined;
}

function amount(num: string, mult: string): number {
  let n: string;
  if (/^\d{1,3}(?:,\d{3})+/.test(num)) n = num.replace(/,/g, '');
  else if (/^\d{1,3}(?:\.\d{3})+/.test(num)) n = num.replace(/\./g, '').replace(',', '.');
  else n = num.replace(',', '.');
  const m = mult.trim().toLowerCase();
  return Number(n) * (m === 'k' ? 1_000 : m === 'm' ? 1_000_000 : 1);
}

function currencyOf(symbol: string | undefined, code: string | undefined, dflt: string | undefined): string {
  if (code) {
    const upper = code.toUpperCase();
    return CODE_ALIASES[upper] ?? upper;
  }
  const cur = SYMBOLS[symbol!] ?? SYMBOLS[symbol!.toUpperCase()]!;
  return symbol === '$' && dflt && DOLLARS.has(dflt) ? dflt : cur;
}

/** The kind of pay the words around a mention say, nearest first; undefined when they say none. */
function kindAround(before: string, after: string): Kind | undefined {
  for (const [re, kind] of UNIT_AFTER) if (re.test(after)) return kind;
  // The words up to the end of the clause after the amount, then those just before it.
  const tail = after.slice(0, 40).split(/[\n;]|\.\s|\s[-–|]\s/)[0]!;
  for (const [re, kind] of WORDS) if (re.test(tail)) return kind;
  const head = before
    .slice(-40)
    .split(/[\n;]|\.\s/)
    .pop()!;
  for (const [re, kind] of WORDS) if (re.test(head)) return kind;
  return undefined;
}

/** "5-10k": a multiplier written once on the upper end applies to the lower one, unless that reads wrong ("500-1k"). */
function lowerEnd(num: string, mult: string, upperNum: string, upperMult: string): number {
  const shared = !mult.trim() && upperMult.trim() && amount(num, '') < amount(upperNum, '');
  return amount(num, shared ? upperMult : mult);
}

function mentions(text: string, dflt: string | undefined): Mention[] {
  const found: Mention[] = [];
  let consumed = 0;
  for (const m of text.matchAll(MONEY)) {
    if (m.index < consumed) continue; // the upper end of a range already read
    const [whole, preSym, preCode, preNum, preMult = '', postNum, postMult = '', postSym, postCode] = m;
    const prefixed = preNum !== undefined;
    const currency = currencyOf(prefixed ? preSym : postSym, prefixed ? preCode : postCode, dflt);
    let start = m.index;
    let end = m.index + whole.length;
    let min: number;
    let max: number;
    if (prefixed) {
      min = max = amount(preNum, preMult);
      const upper = UPPER_AFTER.exec(text.slice(end));
      if (upper) {
        const lower = lowerEnd(preNum, preMult, upper[1]!, upper[2] ?? '');
        const top = amount(upper[1]!, upper[2] ?? '');
        // "$50 - 2 days" is no range: the upper end must be above the lower one.
        if (top > lower) {
          [min, max] = [lower, top];
          end += upper[0].length;
        }
      }
    } else {
      min = max = amount(postNum!, postMult);
      const lower = LOWER_BEFORE.exec(text.slice(Math.max(0, start - 30), start));
      if (lower) {
        const bottom = lowerEnd(lower[1]!, lower[2] ?? '', postNum!, postMult);
        if (bottom < max) {
          min = bottom;
          start -= lower[0].length;
        }
      }
    }
    consumed = end;
    const kind = kindAround(text.slice(Math.max(0, start - 60), start), text.slice(end, end + 80));
    found.push({ currency, min, max, kind });
  }
  return found;
}

function cents(value: number, currency: string): number {
  return Math.round(ZERO_DECIMAL.has(currency) ? value : value * 100);
}

/**
 * The compensation `text` states. The first amount whose words say what it is (hourly, fixed,
 * bounty) wins, else the first plain amount (`bareType`); amounts per year, month, week or day
 * leave the type `unknown` but still tell the currency.
 */
export function parseCompensation(text: string, options: ParseOptions = {}): Compensation {
  const all = mentions(text, options.defaultCurrency).filter((m) => m.min > 0 && cents(m.max, m.currency) <= MAX_CENTS);
  const chosen = all.find((m) => m.kind && m.kind !== 'periodic') ?? all.find((m) => !m.kind);
  if (!chosen) return { type: 'unknown', minCents: null, maxCents: null, currency: all[0]?.currency };
  return {
    type: chosen.kind === 'hourly' || chosen.kind === 'fixed' || chosen.kind === 'bounty' ? chosen.kind : (options.bareType ?? 'fixed'),
    minCents: cents(chosen.min, chosen.currency),
    maxCents: cents(chosen.max, chosen.currency),
    currency: chosen.currency,
  };
}
