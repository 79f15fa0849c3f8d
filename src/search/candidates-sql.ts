// Two-phase retrieval for ranked searches (docs/search.md, "Candidates"): each way a gig can
// become a candidate (a matching word, a skill named in q, a requested skill) contributes its
// newest few hundred gigs; only the union of these is scored in full. A common word matches a
// seventh of the corpus: scoring every match made the cost grow with the corpus (25-45 ms at
// 100,000 gigs), where the newest matches of each arm cost about the same at any size.
import { sql, type SQL } from 'drizzle-orm';
import { textArray } from '../../db/sql.ts';
import type { CompensationType } from '../domain/gig.ts';

export interface GigFilters {
  /** Any of these tags (synonyms already expanded). */
  tags: string[];
  minCompensationCents: number | null;
  compensationType: CompensationType | null;
  currency: string | null;
  sources: string[];
}

/**
 * Gigs an arm contributes: matches in the title or tags, and gigs carrying a tag, weigh most in
 * the ranking and are read from the covering index; matches anywhere (the description) need the
 * table and rank lower, so fewer of them. The labelled set's figures (`npm run eval:search`) are
 * unchanged with these; at scale an older match beyond an arm's newest is not ranked.
 */
export const CANDIDATES = { head: 300, body: 200, tags: 300 } as const;

/**
 * What reading one row costs each way, relative to one entry of the covering index, measured on a
 * server Postgres 15 with a warm cache: an entry of the covering index 0.35-0.5 µs, an entry of a
 * posted_at index with its table row 1.8 µs (the newest rows lie together at the table's end), a
 * row of a bitmap 1.3 µs at 100,000 gigs and 4.6 µs at 1,000,000 (scattered over a table larger
 * than the database's buffers): about 3 times an entry, growing with the square root of the size.
 */
const COST = { coverEntry: 1, tableEntry: 4, bitmapRow: (gigs: number) => 3 * Math.max(1, Math.sqrt(gigs / 100_000)) } as const;

/** How a gig matches an arm; `tsquery` is the query's tsquery expression. */
export type ArmMatch =
  | { kind: 'head'; tsquery: SQL }
  | { kind: 'text'; tsquery: SQL }
  | { kind: 'tags'; tags: string[] }
  /** Every skill (each as its forms): read through the tags index only, where the skills' bitmaps meet. */
  | { kind: 'all-skills'; skills: string[][] };

/** One way to become a candidate; `walk`: read newest first along posted_at (db/migrations/0013) rather than through a GIN index. */
export interface Arm {
  match: ArmMatch;
  limit: number;
  walk: boolean;
}

/**
 * Whether to walk: a walk reads about limit / share index entries (share: of the gigs that pass
 * every filter as well) along the covering index, or limit / (share / indexedFilter) entries with
 * their table rows along the posted_at index of the narrowest filter that has one (type,
 * currency, source: its gigs only, newest first); a GIN index reads every match of what it serves
 * (`indexedShare` of the gigs: the arm and a tags filter) in table rows, then sorts them.
 */
export function worthWalking(args: {
  share: number;
  indexedShare: number;
  indexedFilter: number;
  limit: number;
  gigs: number;
  entry: number;
}): boolean {
  const { share, indexedShare, indexedFilter, limit, gigs, entry } = args;
  if (share <= 0) return false;
  const walk = Math.min((limit / share) * entry, ((limit * indexedFilter) / share) * COST.tableEntry);
  return walk < indexedShare * gigs * COST.bitmapRow(gigs);
}

/** The inputs of the arms: the query and the planner's statistics on the corpus (service.ts). */
export interface ArmInputs {
  websearch: string | null;
  allWords: string | null;
  recallTags: string[];
  requestedSkills: string[][];
  filters: GigFilters;
  /** Shares of gigs: the text's words in title or tags (head), anywhere (body), each tag; the filters other than tags (vocabulary.ts, filtersShare); the gig count. */
  shares: { head: number; body: number; tags: ReadonlyMap<string, number>; filters: { all: number; indexed: number }; gigs: number };
}

/** Most requested skills that get an arm of their own (the tags parameter can name many). */
const MAX_SKILL_ARMS = 8;

/**
 * The ways to become a candidate: a word in the title or tags, a word anywhere, all the words of a
 * short query in the title or tags, a skill named in q, all the requested skills together (their weight decides the order, so the gigs that cover
 * them all are candidates however old) and, without text, each requested skill.
 */
export function candidateArms(input: ArmInputs): Arm[] {
  const { shares, filters } = input;
  const tagShare = (tags: string[]) =>
    Math.min(
      1,
      tags.reduce((sum, t) => sum + (shares.tags.get(t) ?? 0), 0),
    );
  // A tags filter narrows every arm; taken as agreeing with the arm (a search for "rust" with the
  // tag rust), the rarer of the two bounds the arm's share. The other filters are taken as
  // independent of it; the GIN indexes serve the arm's condition and the tags filter only.
  const narrowing = filters.tags.length ? tagShare(filters.tags) : 1;
  const walk = (armShare: number, limit: number, entry: number, tagsOfFilter = false) => {
    const indexedShare = tagsOfFilter ? armShare : Math.min(armShare, narrowing);
    return worthWalking({
      share: indexedShare * shares.filters.all,
      indexedShare,
      indexedFilter: shares.filters.indexed,
      limit,
      gigs: shares.gigs,
      entry,
    });
  };
  const arms: Arm[] = [];
  const seen = new Set<string>();
  const tagArm = (tags: string[]) => {
    const key = [...tags].sort().join(',');
    if (!tags.length || seen.has(key)) return;
    seen.add(key);
    const ofFilter = tags.every((t) => filters.tags.includes(t));
    arms.push({
      match: { kind: 'tags', tags },
      limit: CANDIDATES.tags,
      walk: walk(tagShare(tags), CANDIDATES.tags, COST.coverEntry, ofFilter),
    });
  };
  if (input.websearch !== null) {
    // The tsquery inline, not joined: planned with the query's value, its selectivity is known.
    const tsquery = sql`websearch_to_tsquery('english', ${input.websearch})`;
    arms.push({ match: { kind: 'head', tsquery }, limit: CANDIDATES.head, walk: walk(shares.head, CANDIDATES.head, COST.coverEntry) });
    arms.push({ match: { kind: 'text', tsquery }, limit: CANDIDATES.body, walk: walk(shares.body, CANDIDATES.body, COST.tableEntry) });
    // Every word in the title or tags ranks highest, however old: rarer than each word, read where
    // the words' bitmaps meet in the GIN index.
    if (input.allWords !== null) {
      arms.push({
        match: { kind: 'head', tsquery: sql`plainto_tsquery('english', ${input.allWords})` },
        limit: CANDIDATES.head,
        walk: false,
      });
    }
  }
  tagArm(input.recallTags);
  const skills = input.requestedSkills.filter((forms) => forms.length);
  if (skills.length >= 2) arms.push({ match: { kind: 'all-skills', skills }, limit: CANDIDATES.tags, walk: false });
  if (input.websearch === null) for (const forms of skills.slice(0, MAX_SKILL_ARMS)) tagArm(forms);
  return arms;
}

function matchCondition(match: ArmMatch): SQL {
  switch (match.kind) {
    case 'head':
      return sql`g.search_head @@ ${match.tsquery}`;
    case 'text':
      return sql`g.search_tsv @@ ${match.tsquery}`;
    case 'tags':
      return sql`g.tags && ${textArray(match.tags)}`;
    case 'all-skills':
      return sql`(${sql.join(
        match.skills.map((forms) => sql`g.tags && ${textArray(forms)}`),
        sql` and `,
      )})`;
  }
}

const orNull = (items: string[]) => (items.length ? textArray(items) : sql`null::text[]`);

/** A walk: the function of migration 0013, whose planner settings leave only the posted_at walk. */
function walkSql(arm: Arm, f: GigFilters, createdBefore: SQL): SQL {
  const m = arm.match;
  if (m.kind === 'all-skills') throw new Error('an arm of every requested skill is read through the tags index, never walked');
  const head = m.kind === 'head' ? m.tsquery : sql`null::tsquery`;
  const body = m.kind === 'text' ? m.tsquery : sql`null::tsquery`;
  const tags = m.kind === 'tags' ? textArray(m.tags) : sql`null::text[]`;
  return sql`(select id from newest_open_gig_ids(${head}, ${body}, ${tags}, ${orNull(f.tags)}, ${f.minCompensationCents}::int,
    ${f.compensationType}::text, ${f.currency}::text, ${orNull(f.sources)}, ${createdBefore}, ${Math.trunc(arm.limit)}::int) as w(id))`;
}

/**
 * The arms that do not walk. One is read through its GIN index in a subquery behind OFFSET 0, out
 * of reach of the ORDER BY, so that the planner does not walk posted_at on its own misjudged
 * estimate. Several are read together (`indexed_matches`, a bitmap OR of their conditions: each
 * table row once, however many arms match it; the arms of one search often match the same rows),
 * then each arm takes its newest `limit` of that.
 */
function indexedArmsSql(arms: Arm[], where: SQL, created: SQL): { ctes: SQL; parts: SQL[] } {
  const newest = (arm: Arm, from: SQL, condition: SQL) =>
    sql`(select id from ${from} where ${condition} order by posted_at desc, id desc limit ${sql.raw(String(Math.trunc(arm.limit)))})`;
  if (arms.length === 1) {
    const arm = arms[0]!;
    const from = sql`(select g.id, g.posted_at from gigs g where ${where} and ${matchCondition(arm.match)}${created} offset 0) m`;
    return { ctes: sql``, parts: [newest(arm, from, sql`true`)] };
  }
  const flags = arms.map((arm, i) => sql`${matchCondition(arm.match)} as ${sql.raw(`m${i}`)}`);
  const ctes = sql`indexed_matches as materialized (select g.id, g.posted_at, ${sql.join(flags, sql`, `)} from gigs g
    where ${where}${created} and (${sql.join(
      arms.map((arm) => matchCondition(arm.match)),
      sql` or `,
    )})),`;
  return { ctes, parts: arms.map((arm, i) => newest(arm, sql`indexed_matches`, sql.raw(`m${i}`))) };
}

/**
 * The `cand(id)` CTE: the union of each arm's newest gigs that pass the filters. An arm that finds
 * fewer than its limit holds all its matches, so on a small corpus the ranking is exact.
 * `createdBefore` (later pages: the database's time when the first page was ranked) keeps gigs
 * created since out of the arms, so that they cannot push a candidate of the first page out, and
 * pages neither repeat nor skip. `extra` adds ids to score whatever their age (the caller's
 * feedback, semantic neighbours).
 */
export function candidatesCte(args: { arms: Arm[]; filters: GigFilters; where: SQL[]; createdBefore: number | null; extra: SQL[] }): SQL {
  // Microseconds added to the epoch: exact, where a float of seconds would round.
  const before =
    args.createdBefore !== null
      ? sql`('epoch'::timestamptz + ${args.createdBefore}::int8 * interval '1 microsecond')`
      : sql`null::timestamptz`;
  const created = args.createdBefore !== null ? sql` and g.created_at <= ${before}` : sql``;
  const walked = args.arms.filter((arm) => arm.walk).map((arm) => walkSql(arm, args.filters, before));
  const indexed = args.arms.filter((arm) => !arm.walk);
  const { ctes, parts } = indexed.length ? indexedArmsSql(indexed, sql.join(args.where, sql` and `), created) : { ctes: sql``, parts: [] };
  return sql`${ctes} cand as (${sql.join([...walked, ...parts, ...args.extra], sql` union `)}),`;
}
