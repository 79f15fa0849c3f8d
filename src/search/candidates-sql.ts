// Two-phase retrieval for ranked searches (docs/search.md, "Candidates"): each way a gig can
// become a candidate (a matching word, a skill named in q, a requested skill) contributes its
// newest few hundred gigs, an order the posted_at indexes give without reading every match; only
// the union of these is scored in full. A common word matches a seventh of the corpus: scoring
// every match made the cost grow with the corpus (25-45 ms at 100,000 gigs), where the newest
// matches of each arm cost about the same at any size.
import { sql, type SQL } from 'drizzle-orm';

/**
 * Gigs an arm contributes: matches in the title or tags, and gigs carrying a tag, weigh most in
 * the ranking and are read from the covering index; matches anywhere (the description) need the
 * table and rank lower, so fewer of them. The labelled set's figures (`npm run eval:search`) are
 * unchanged with these; at scale an older match beyond an arm's newest is not ranked.
 */
export const CANDIDATES = { head: 300, body: 200, tags: 300 } as const;

/**
 * Whether an arm is worth walking to: a walk reads about limit / share index entries, reading the
 * matches through a GIN index costs their number (share x gigs) in table rows, each about five
 * times dearer here. When every arm walks, the search runs with bitmap and sequential scans off
 * (ranking-sql.ts, rankedRows), which leaves the planner the posted_at walks: its own estimates
 * for `&&` and `@@` combined with filters were 10-100x too low, and it read 40,000-70,000 matches
 * through the GIN indexes at 1,000,000 gigs where the walks read a few tens of thousands of index
 * entries and no table rows.
 */
export function worthWalking(share: number, limit: number, gigs: number): boolean {
  return share > 0 && limit / share < 5 * share * gigs;
}

/** One way to become a candidate: `condition` on `g` (gigs); `walk`: common enough to walk to. */
export interface Arm {
  condition: SQL;
  limit: number;
  walk: boolean;
}

/**
 * The `cand(id)` CTE: the union of each arm's newest gigs that pass the filters. An arm that finds fewer than its limit holds all its matches,
 * so on a small corpus the ranking is exact. `createdBefore` (later pages: the database's time when
 * the first page was ranked) keeps gigs created since out of the arms, so that they cannot push a
 * candidate of the first page out, and pages neither repeat nor skip. `extra` adds ids to score
 * whatever their age (the caller's feedback, semantic neighbours).
 */
export function candidatesCte(args: { arms: Arm[]; filters: SQL[]; createdBefore: number | null; extra: SQL[] }): SQL {
  // Microseconds added to the epoch: exact, where a float of seconds would round.
  const created =
    args.createdBefore !== null
      ? sql` and g.created_at <= 'epoch'::timestamptz + ${args.createdBefore}::int8 * interval '1 microsecond'`
      : sql``;
  const filters = sql.join(args.filters, sql` and `);
  const parts = args.arms.map(
    (arm) =>
      sql`(select g.id from gigs g
        where ${filters} and ${arm.condition}${created}
        order by g.posted_at desc, g.id desc limit ${sql.raw(String(Math.trunc(arm.limit)))})`,
  );
  return sql`cand as (${sql.join([...parts, ...args.extra], sql` union `)}),`;
}
