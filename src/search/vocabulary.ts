// What search knows about the corpus, per database: the tags on open gigs (which q can name as
// skills) and how common words are. Read from the database and kept for a while (stale while it
// refreshes): caches, so another instance loses nothing.
import type { Db } from '../../db/client.ts';
import { estimatedGigs, hasPgvector, openGigTags, tagShares, valueShares, wordShares } from '../../db/repositories/search.ts';

const TTL_MS = 30_000;
/**
 * Reading the tags once scanned every open gig (a burst of load at a million gigs that showed in
 * other searches' tail latency at every refresh); it now probes open_gig_tags once per distinct
 * tag. Still, the vocabulary is kept at least 200 times as long as it took to read, so that
 * refreshing costs at most 0.5% of the time.
 */
const TTL_PER_LOAD_MS = 200;

interface Entry {
  tags: Set<string>;
  loadedAt: number;
  ttlMs: number;
  loading: Promise<Set<string>> | null;
}
const vocabularies = new WeakMap<Db, Entry>();

async function load(db: Db): Promise<Set<string>> {
  const started = Date.now();
  const tags = new Set(await openGigTags(db));
  const loadedAt = Date.now();
  vocabularies.set(db, { tags, loadedAt, ttlMs: Math.max(TTL_MS, (loadedAt - started) * TTL_PER_LOAD_MS), loading: null });
  return tags;
}

/** The vocabulary; `fresh` reads it now (after loading data in bulk, as the evaluation does). */
export async function tagVocabulary(db: Db, options: { fresh?: boolean } = {}): Promise<ReadonlySet<string>> {
  const entry = vocabularies.get(db);
  if (!entry || options.fresh) return entry?.loading ?? load(db);
  if (Date.now() - entry.loadedAt > entry.ttlMs && !entry.loading) {
    entry.loading = load(db).catch(() => {
      entry.loading = null;
      return entry.tags;
    });
  }
  return entry.tags;
}

const pgvector = new WeakMap<Db, Promise<boolean>>();

/** Whether this database has pgvector (asked once per database). */
export function usesPgvector(db: Db): Promise<boolean> {
  let known = pgvector.get(db);
  if (!known) {
    known = hasPgvector(db).catch(() => false);
    pgvector.set(db, known);
  }
  return known;
}

const SHARE_TTL_MS = 10 * 60_000;
type ShareCache = Map<string, { share: number; at: number }>;
const shares = new WeakMap<Db, ShareCache>();
const tagShareCaches = new WeakMap<Db, ShareCache>();
const headShareCaches = new WeakMap<Db, ShareCache>();
const valueShareCaches = new WeakMap<Db, ShareCache>();

async function remembered(
  caches: WeakMap<Db, ShareCache>,
  db: Db,
  keys: string[],
  read: (db: Db, keys: string[]) => Promise<Map<string, number>>,
): Promise<Map<string, number>> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const now = Date.now();
  const missing = keys.filter((w) => !((cache.get(w)?.at ?? -Infinity) > now - SHARE_TTL_MS));
  if (missing.length) {
    if (cache.size > 50_000) cache.clear();
    for (const [key, share] of await read(db, missing)) cache.set(key, { share, at: now });
  }
  return new Map(keys.map((w) => [w, cache.get(w)?.share ?? 0]));
}

/** Each word's share of gigs (see wordShares), remembered for ten minutes per database. */
export function commonness(db: Db, words: string[]): Promise<Map<string, number>> {
  return remembered(shares, db, words, wordShares);
}

/** Each word's share of gigs in their title or tags (search_head), remembered as commonness is. */
export function headCommonness(db: Db, words: string[]): Promise<Map<string, number>> {
  return remembered(headShareCaches, db, words, (d, w) => wordShares(d, w, 'search_head'));
}

/** Each tag's share of gigs (see tagShares), remembered for ten minutes per database. */
export function tagCommonness(db: Db, tags: string[]): Promise<Map<string, number>> {
  return remembered(tagShareCaches, db, tags, tagShares);
}

/** Each `column:value`'s share of gigs (see valueShares), remembered as commonness is. */
export function valueCommonness(db: Db, keys: string[]): Promise<Map<string, number>> {
  return remembered(valueShareCaches, db, keys, valueShares);
}

/** Shares of the gigs that pass the filters other than tags and pay (filtersShare). */
export interface FiltersShare {
  all: number;
  indexed: number;
  type: number;
}

/**
 * The share of gigs that pass the equality filters (type, currency, sources), taken as
 * independent (`all`), of the one with a posted_at index of its own that narrows most
 * (`indexed`: type, currency, or a single source), and of the type alone (`type`: its posted_at
 * index covers a walk); 1 without any. The pay minimum is left out (no estimate: taken as passing
 * all).
 */
export async function filtersShare(
  db: Db,
  compensationType: string | null,
  currency: string | null,
  sources: string[],
): Promise<FiltersShare> {
  const keys = [
    ...(compensationType ? [`compensation_type:${compensationType}`] : []),
    ...(currency ? [`currency:${currency}`] : []),
    ...sources.map((s) => `source:${s}`),
  ];
  if (!keys.length) return { all: 1, indexed: 1, type: 1 };
  const known = await valueCommonness(db, keys);
  const share = (key: string) => known.get(key) ?? 0;
  const type = compensationType ? share(`compensation_type:${compensationType}`) : 1;
  const money = currency ? share(`currency:${currency}`) : 1;
  const source = sources.length
    ? Math.min(
        1,
        sources.reduce((sum, s) => sum + share(`source:${s}`), 0),
      )
    : 1;
  return { all: type * money * source, indexed: Math.min(type, money, sources.length === 1 ? source : 1), type };
}

const counts = new WeakMap<Db, { n: number; at: number }>();

/** How many gigs the planner counts (see estimatedGigs), remembered for ten minutes per database. */
export async function gigCount(db: Db): Promise<number> {
  const known = counts.get(db);
  if (known && known.at > Date.now() - SHARE_TTL_MS) return known.n;
  const n = await estimatedGigs(db);
  counts.set(db, { n, at: Date.now() });
  return n;
}

/** Forget what was read about this database (after loading data in bulk). */
export function forgetCorpus(db: Db): void {
  vocabularies.delete(db);
  shares.delete(db);
  tagShareCaches.delete(db);
  headShareCaches.delete(db);
  valueShareCaches.delete(db);
  counts.delete(db);
}
