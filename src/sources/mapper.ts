import { normalizeTags } from '../domain/gig.ts';
import { parseCompensation } from './compensation.ts';
import type { ExternalGig } from '../../db/repositories/external-gigs.ts';

/** An item as a format module read it: loosely typed, checked here. */
export interface RawItem {
  id: unknown;
  title: unknown;
  /** The body as HTML (stripped here) or as text. */
  html?: unknown;
  text?: unknown;
  tags: unknown[];
  url: unknown;
  /** When it was published (or, failing that, last updated). */
  date: unknown;
}

/** What one sync writes for an item. */
export type { ExternalGig };

export interface MapOptions {
  /** The feed's own address, against which relative item links resolve. */
  baseUrl: string;
  defaultCurrency: string;
  bareType: 'fixed' | 'bounty';
}

// The limits a native gig has (openapi.yaml GigCreate, GigTags).
export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 20_000;
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 40;
const MAX_EXTERNAL_ID = 500;
const MAX_URL = 2000;

/** An item that cannot become a gig; the rest of its feed still lands. */
export class ItemError extends Error {}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  copy: '©',
  reg: '®',
  trade: '™',
  bull: '•',
  middot: '·',
  times: '×',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Readable text from an HTML fragment: block ends become line breaks, tags go, entities decode. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|ul|ol|h[1-6]|tr|table|blockquote|pre|section|article)\s*>/gi, '\n')
    .replace(/<\/?[a-z][a-z0-9-]*(?:\s[^>]*)?\/?>/gi, '');
  return tidy(decodeEntities(text));
}

/** Spaces collapsed within lines, at most one empty line in a row, trimmed. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** Like native gigs (trimmed, lowercased, deduplicated), and within their limits: longer ones are dropped. */
export function normalizeExternalTags(tags: unknown[]): string[] {
  const strings = tags.filter((t): t is string => typeof t === 'string').map((t) => decodeEntities(t).replace(/\s+/g, ' '));
  return normalizeTags(strings)
    .filter((t) => t.length > 0 && t.length <= MAX_TAG_LENGTH)
    .slice(0, MAX_TAGS);
}

function externalId(raw: unknown): string {
  const id = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!id) throw new ItemError('no id');
  if (id.length > MAX_EXTERNAL_ID) throw new ItemError(`id longer than ${MAX_EXTERNAL_ID} characters`);
  return id;
}

function itemUrl(raw: unknown, base: string): string {
  if (typeof raw !== 'string' || !raw.trim()) throw new ItemError('no url');
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    throw new ItemError(`url "${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ItemError(`url "${raw}" is not http(s)`);
  if (url.href.length > MAX_URL) throw new ItemError(`url longer than ${MAX_URL} characters`);
  return url.href;
}

/** RFC 3339 (JSON Feed, Atom, GitHub) and RFC 822 (RSS) both parse with Date; anything else is no date. */
function postedAt(raw: unknown): Date | null {
  if (typeof raw !== 'string' || !raw.trim()) return null;
  const date = new Date(raw.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The gig an item describes; throws ItemError when it cannot be one. */
export function toExternalGig(item: RawItem, options: MapOptions): ExternalGig {
  const id = externalId(item.id);
  const title = clip(htmlToText(typeof item.title === 'string' ? item.title : '').replace(/\s+/g, ' '), MAX_TITLE);
  if (!title) throw new ItemError('no title');
  const description =
    typeof item.html === 'string' && item.html.trim() ? htmlToText(item.html) : typeof item.text === 'string' ? tidy(item.text) : '';
  const pay = parseCompensation(`${title}\n${description}`, { defaultCurrency: options.defaultCurrency, bareType: options.bareType });
  return {
    externalId: id,
    title,
    description: clip(description, MAX_DESCRIPTION),
    tags: normalizeExternalTags(item.tags),
    compensationType: pay.type,
    compensationMinCents: pay.minCents,
    compensationMaxCents: pay.maxCents,
    currency: pay.currency ?? options.defaultCurrency,
    url: itemUrl(item.url, options.baseUrl),
    postedAt: postedAt(item.date),
  };
}
