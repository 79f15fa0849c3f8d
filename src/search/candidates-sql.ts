// Two-phase retrieval for ranked searches (docs/search.md, "Candidates"): each way a gig can
// become a candidate (a matching word, a skill named in q, a requested skill) contributes its
// newest few hundred gigs; only the union of these is scored in full. A common word matches a
// seventh of the corpus: scoring every match made the cost grow with the corpus, where the newest
// matches of each arm cost about the same at any size.
import { type SQL, sql } from 'drizzle-orm';
import { textArray } from '../../db/sql.ts';
import type { CompensationType } from '../domain/gig.ts';
import type { FiltersShare } from './vocabulary.ts';

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
 * table and rank lower, so fewer of them: a description-only match reaches the first page only
 * when title matches are few, and then the arms are not full (200 -> 50 changed no page of the
 * bench at 100,000 gigs; 250 for the others kept them, 200 did not). The labelled set's figures
 * (`npm run eval:search`) are unchanged with these; at scale an older match beyond an arm's
 * newest is not ranked.
 */
export const CANDIDATES = { head: 300, body: 50, tags: 300 } as const;

/**
 * What reading one row costs each way, relative to one entry of the covering index, as measured on
 * a server Postgres with a warm cache (docs/search.md, "Per-arm reads", has the figures): an
 * entry of a posted_at index with its table row about 4 entries (the newest rows lie together at
 * the table's end); a row of a bitmap about 3, growing with the square root of the table's size
 * (the matches lie scattered over a table larger than the database's buffers); a gig looked up by
 * id from a row of open_gig_tags (its primary key and row: 4 buffers) about 10; an entry of
 * open_gig_tags itself counted as one.
 */
const COST = {
  coverEntry: 1,
  tableEntry: 4,
  bitmapRow: (gigs: number) => 3 * Math.max(1, Math.sqrt(gigs / 100_000)),
  lookup: 10,
} as const;

/**
 * How an arm is read: walking posted_at (db/migrations/0013), through a GIN index, or, for an arm
 * of tags only, along each tag's newest rows in open_gig_tags (db/migrations/0014).
 */
export type ArmRead = 'walk' | 'gin' | 'tag-rows';

/** How a gig matches an arm; `tsquery` is the query's tsquery expression. */
export type ArmMatch =
  | { kind: 'head'; tsquery: SQL }
  | { kind: 'text'; tsquery: SQL }
  | { kind: 'tags'; tags: string[] }
  /** Every skill (each as its forms): read through the tags index only, where the skills' bitmaps meet. */
  | { kind: 'all-skills'; skills: string[][] };

/** One way to become a candidate, and how it is read. */
export interface Arm {
  match: ArmMatch;
  limit: number;
  read: ArmRead;
}

/**
 * What walking and reading the GIN index cost: a walk reads about limit / share index entries (share: of the gigs that pass
 * every filter as well) along the covering index, or limit / (share / typeFilter) entries along
 * the type's covering index (db/migrations/0015: that type's gigs only, newest first, tested
 * without the table, so each at `entry`); or limit / (share / indexedFilter) entries with their
 * table rows along the posted_at index of the narrowest filter that has one (type, currency,
 * source). A GIN index reads every match of what it serves (`indexedShare` of the gigs: the arm
 * and a tags filter) in table rows, then sorts them.
 */
function readCosts(args: {
  share: number;
  indexedShare: number;
  indexedFilter: number;
  typeFilter: number;
  limit: number;
  gigs: number;
  entry: number;
}): {
  walk: number;
  gin: number;
} {
  const { share, indexedShare, indexedFilter, typeFilter, limit, gigs, entry } = args;
  // Without a type filter typeFilter is 1: the first way is the covering index itself.
  const entries = limit / share;
  const walk = share <= 0 ? Number.POSITIVE_INFINITY : Math.min(entries * typeFilter * entry, entries * indexedFilter * COST.tableEntry);
  return { walk, gin: indexedShare * gigs * COST.bitmapRow(gigs) };
}

/**
 * What reading a 'tags' arm along open_gig_tags costs: each tag's range, newest first, until
 * `limit` of its rows pass the filters (about limit / pass entries, pass being the share of that
 * tag's open gigs that pass) or to its end (the tag's count). The table holds the open gigs'
 * tags only, so without filters each entry is one index entry; with them, each entry also looks
 * its gig up (primary key and row, COST.lookup) to test them.
 */
export function tagRowsCost(args: { tags: { count: number; pass: number }[]; limit: number; lookup: boolean }): number {
  const perEntry = COST.coverEntry + (args.lookup ? COST.lookup : 0);
  return args.tags.reduce((sum, t) => sum + (t.count > 0 ? Math.min(t.count, args.limit / t.pass) : 0) * perEntry, 0);
}

/**
 * Whether reading these tags along open_gig_tags must look each gig up: the table holds open gigs
 * only, and a row of a tag of the tags filter passes that filter (the arm of a requested skill),
 * so only the other filters, a tags filter the arm's tags are not all of, or a later page's cut
 * need the gig.
 */
export function tagRowsLookup(tags: string[], f: GigFilters, createdBefore: number | null): boolean {
  const others = f.minCompensationCents !== null || f.compensationType !== null || f.currency !== null || f.sources.length > 0;
  return others || createdBefore !== null || (f.tags.length > 0 && !tags.every((t) => f.tags.includes(t)));
}

/** The inputs of the arms: the query and the planner's statistics on the corpus (service.ts). */
export interface ArmInputs {
  websearch: string | null;
  allWords: string | null;
  recallTags: string[];
  requestedSkills: string[][];
  filters: GigFilters;
  /** A later page's cut (candidatesCte): a read of open_gig_tags then tests each gig's created_at. */
  createdBefore?: number | null;
  /** Shares of gigs: the text's words in title or tags (head), anywhere (body), each tag; the filters other than tags (vocabulary.ts, filtersShare); the gig count. */
  shares: { head: number; body: number; tags: ReadonlyMap<string, number>; filters: FiltersShare; gigs: number };
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
  const costs = (armShare: number, limit: number, entry: number, tagsOfFilter = false) => {
    const indexedShare = tagsOfFilter ? armShare : Math.min(armShare, narrowing);
    return readCosts({
      share: indexedShare * shares.filters.all,
      indexedShare,
      indexedFilter: shares.filters.indexed,
      typeFilter: shares.filters.type,
      limit,
      gigs: shares.gigs,
      entry,
    });
  };
  const walkOrGin = (c: { walk: number; gin: number }): ArmRead => (c.walk < c.gin ? 'walk' : 'gin');
  const arms: Arm[] = [];
  const seen = new Set<string>();
  const tagArm = (tags: string[]) => {
    const key = [...tags].sort().join(',');
    if (!tags.length || seen.has(key)) return;
    seen.add(key);
    const ofFilter = tags.every((t) => filters.tags.includes(t));
    const c = costs(tagShare(tags), CANDIDATES.tags, COST.coverEntry, ofFilter);
    // A tag's rows pass the tags filter when it is one of the filter's tags; otherwise, as above,
    // the filter's tags are taken as agreeing with it (at most the filter's share of its gigs).
    const tagRows = tagRowsCost({
      tags: tags.map((t) => {
        const share = shares.tags.get(t) ?? 0;
        const ofTags = filters.tags.includes(t) ? 1 : Math.min(1, narrowing / share);
        return { count: share * shares.gigs, pass: shares.filters.all * ofTags };
      }),
      limit: CANDIDATES.tags,
      lookup: tagRowsLookup(tags, filters, input.createdBefore ?? null),
    });
    arms.push({
      match: { kind: 'tags', tags },
      limit: CANDIDATES.tags,
      read: tagRows < Math.min(c.walk, c.gin) ? 'tag-rows' : walkOrGin(c),
    });
  };
  if (input.websearch !== null) {
    // The tsquery inline, not joined: planned with the query's value, its selectivity is known.
    const tsquery = sql`websearch_to_tsquery('english', ${input.websearch})`;
    arms.push({
      match: { kind: 'head', tsquery },
      limit: CANDIDATES.head,
      read: walkOrGin(costs(shares.head, CANDIDATES.head, COST.coverEntry)),
    });
    arms.push({
      match: { kind: 'text', tsquery },
      limit: CANDIDATES.body,
      read: walkOrGin(costs(shares.body, CANDIDATES.body, COST.tableEntry)),
    });
    // Every word in the title or tags ranks highest, however old: rarer than each word, read where
    // the words' bitmaps meet in the GIN index.
    if (input.allWords !== null) {
      arms.push({
        match: { kind: 'head', tsquery: sql`plainto_tsquery('english', ${input.allWords})` },
        limit: CANDIDATES.head,
        read: 'gin',
      });
    }
  }
  tagArm(input.recallTags);
  const skills = input.requestedSkills.filter((forms) => forms.length);
  if (skills.length >= 2) arms.push({ match: { kind: 'all-skills', skills }, limit: CANDIDATES.tags, read: 'gin' });
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
 * A 'tags' arm along open_gig_tags (db/migrations/0014): each tag's newest rows that pass the
 * filters, read in its own btree range so that it stops after `limit` of them; then the tags'
 * reads merged (a gig with two of the tags once) and the newest `limit` kept. Without a lookup
 * (tagRowsLookup) the gigs table is not read at all.
 */
function tagRowsSql(arm: Arm, where: SQL, created: SQL, lookup: boolean): SQL {
  if (arm.match.kind !== 'tags') throw new Error('only an arm of tags is read along open_gig_tags');
  const limit = sql.raw(String(Math.trunc(arm.limit)));
  const rows = lookup
    ? sql`open_gig_tags s join gigs g on g.id = s.gig_id where s.tag = t.tag and ${where}${created}`
    : sql`open_gig_tags s where s.tag = t.tag`;
  return sql`(select id from (select distinct x.gig_id as id, x.posted_at from unnest(${textArray(arm.match.tags)}) as t(tag)
    cross join lateral (select s.gig_id, s.posted_at from ${rows} order by s.posted_at desc, s.gig_id desc limit ${limit}) x) d
    order by posted_at desc, id desc limit ${limit})`;
}

/**
 * The arms read through their GIN indexes. One is read through its GIN index in a subquery behind OFFSET 0, out
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
  const where = sql.join(args.where, sql` and `);
  const reads = (read: ArmRead) => args.arms.filter((arm) => arm.read === read);
  const walked = reads('walk').map((arm) => walkSql(arm, args.filters, before));
  const tagRows = reads('tag-rows').map((arm) =>
    tagRowsSql(arm, where, created, arm.match.kind === 'tags' && tagRowsLookup(arm.match.tags, args.filters, args.createdBefore)),
  );
  const indexed = reads('gin');
  const { ctes, parts } = indexed.length ? indexedArmsSql(indexed, where, created) : { ctes: sql``, parts: [] };
  return sql`${ctes} cand as (${sql.join([...walked, ...tagRows, ...parts, ...args.extra], sql` union `)}),`;
}
