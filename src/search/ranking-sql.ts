// Discovery's ranking SQL: filters first, then the score components and their fusion, so that
// Postgres orders and pages ranked results itself. The formulas mirror scoring.ts beside this file
// (a test checks that the two agree). Every query reads open gigs only: the partial indexes of
// migration 0003 cover exactly those.
import { and, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { list, rowsOf, textArray } from '../../db/sql.ts';
import { FIELD_WEIGHTS, FEEDBACK_EFFECT, type FeedbackSignal, type RankingWeights } from './scoring.ts';
import type { CompensationType } from '../domain/gig.ts';
import { candidateArms, candidatesCte, type ArmInputs, type GigFilters } from './candidates-sql.ts';

export { rowsOf, textArray };
export type { GigFilters };

const uuidArray = (items: readonly string[]) => (items.length ? sql`ARRAY[${list(items)}]::uuid[]` : sql`'{}'::uuid[]`);
const f8 = (n: number) => sql`${n}::float8`;
/**
 * A number of the ranking's own (a weight, a constant of scoring.ts) written into the SQL: never
 * input, and dozens of parameters fewer to build and bind on every search.
 */
const k8 = (n: number) => {
  if (!Number.isFinite(n)) throw new Error(`ranking constant ${n} is not a finite number`);
  return sql.raw(`(${n})::float8`);
};

/** The top of the stated pay, as the index gigs_open_pay_high_idx has it; min_compensation_cents compares with it. */
const PAY_HIGH_TEXT = 'coalesce(g.compensation_max_cents, g.rate_cents, g.compensation_min_cents)';
const PAY_LOW_TEXT = 'coalesce(g.compensation_min_cents, g.rate_cents, g.compensation_max_cents)';
const PAY_HIGH = sql.raw(PAY_HIGH_TEXT);
const PAY_LOW = sql.raw(PAY_LOW_TEXT);
/** The stated pay as a range, as the GiST index gigs_open_pay_range_idx has it. */
const PAY_RANGE = sql.raw(`int4range(least(${PAY_LOW_TEXT}, ${PAY_HIGH_TEXT}), greatest(${PAY_LOW_TEXT}, ${PAY_HIGH_TEXT}), '[]')`);

/** Semantic ranking inputs: the query's unit vector, and whether pgvector's HNSW index serves it. */
export interface SemanticInput {
  model: string;
  dims: number;
  vector: number[];
  /** Nearest neighbours that join the candidates even without a matching word. */
  neighbours: number;
  pgvector: boolean;
}

export interface SearchPlan {
  userId: string;
  filters: GigFilters;
  /** For websearch_to_tsquery('english', ...); null: no lexical component. */
  websearch: string | null;
  /** All the words of a short plain query, for plainto_tsquery('english', ...) (query.ts, TextQuery). */
  allWords: string | null;
  /** Words to report when they match a field (title, tags, description). */
  hitTerms: string[];
  /** Each requested skill as its synonym forms; coverage counts the skills whose forms meet the tags. */
  requestedSkills: string[][];
  /** Tags that make a gig a candidate even without a matching word (skills named in q). */
  recallTags: string[];
  /** The planner's statistics on the corpus that decide how each arm is read (candidates-sql.ts). */
  shares: ArmInputs['shares'];
  semantic: SemanticInput | null;
  weights: RankingWeights;
  asOf: Date;
  after: { score: number; id: string } | null;
  /**
   * Later pages: the database's time when the first page was ranked (as it printed it); gigs
   * created since do not become candidates, so that the candidate set, and the pages, stay put.
   */
  createdBefore: number | null;
  /** Rows to return (the caller asks for one more than it shows, to know if there is a next page). */
  take: number;
  /** Rank every match, without the first phase: the benchmark's reference for what the arms miss; never set by the API. */
  exhaustive?: boolean;
}

/** One ranked gig with the raw inputs of its components. */
export interface RankedRow {
  id: string;
  client_user_id: string | null;
  title: string;
  description: string;
  rate_cents: number | null;
  compensation_type: CompensationType;
  compensation_min_cents: number | null;
  compensation_max_cents: number | null;
  currency: string;
  tags: string[];
  status: string;
  source: string;
  external_id: string | null;
  url: string | null;
  posted_epoch: number;
  signal: FeedbackSignal | null;
  /** ts_rank, or null without a text query. */
  lexical_rank: number | null;
  /** Requested skills covered (count), or null when none were requested. */
  skills_covered: number | null;
  compensation_fit: number | null;
  freshness: number;
  /** Cosine similarity, or null (semantic not used, or the gig has no embedding yet). */
  semantic: number | null;
  score: number;
  title_hits: string[];
  tag_hits: string[];
  description_hits: string[];
  /** The database's time of the ranking in microseconds (ranked searches only), for the next page's createdBefore. */
  ranked_at?: string | number;
}

const OPEN = sql`g.status = 'open'`;
/**
 * The status condition written so that no index can serve it: for candidates looked up by id, the
 * planner took gigs_status_id_idx (status, id) over the primary key, comparing the status text at
 * each level of every descent (through the collation, not a memcmp). Through the primary key, the
 * eight shapes of the bench that read candidates by id took 2-12% less time as bare SQL at
 * 100,000 gigs (median 7%, 23 of 24 pairs alternating), same rows.
 */
const OPEN_BY_ROW = sql`(g.status || '') = 'open'`;

/**
 * `payIndex: false` writes the pay condition so that gigs_open_pay_high_idx cannot serve it: with
 * text in the query the text index is the better driver, but the planner sometimes misjudged a
 * common word OR-ed with its tag and scanned the pay index instead, at twice the cost in the bench.
 */
export function filterConditions(f: GigFilters, options: { payIndex?: boolean } = {}): SQL[] {
  return [OPEN, ...requestFilterConditions(f, options)];
}

/** The request's filters, without the status condition every query has. */
function requestFilterConditions(f: GigFilters, options: { payIndex?: boolean }): SQL[] {
  const c: SQL[] = [];
  if (f.tags.length) c.push(sql`g.tags && ${textArray(f.tags)}`);
  if (f.minCompensationCents !== null) {
    c.push(
      options.payIndex === false
        ? sql`(${PAY_HIGH} + 0) >= ${f.minCompensationCents}::int`
        : sql`${PAY_HIGH} >= ${f.minCompensationCents}::int`,
    );
  }
  if (f.compensationType) c.push(sql`g.compensation_type = ${f.compensationType}`);
  if (f.currency) c.push(sql`g.currency = ${f.currency}`);
  if (f.sources.length) c.push(sql`g.source in (${list(f.sources)})`);
  return c;
}

/** freshness() of scoring.ts, over g.posted_at. */
function freshnessSql(w: RankingWeights, asOf: Date): SQL {
  return sql`exp(${k8(-Math.LN2 / w.freshnessHalfLifeDays)} * greatest(0::float8, (${f8(asOf.getTime() / 1000)} - date_part('epoch', g.posted_at)) / 86400))`;
}

/** The feedback effect of scoring.applyFeedback on a fused score (column `signal` in scope). */
function withFeedback(score: SQL): SQL {
  return sql`case signal when 'up' then ${score} + (1 - ${score}) * ${k8(FEEDBACK_EFFECT.upLift)} when 'down' then ${score} * ${k8(FEEDBACK_EFFECT.downFactor)} else ${score} end`;
}

const afterCondition = (after: SearchPlan['after']) =>
  after ? sql`where (score < ${f8(after.score)} or (score = ${f8(after.score)} and id < ${after.id}::uuid))` : sql``;

/**
 * Words of the query found in each field of the (few) rows of a page, `g` being the page's gigs:
 * title, tags, description. Each field's part of the gig's vector is cut once per row (`join`),
 * not once per word of the query.
 */
function pageHits(terms: string[]): { columns: SQL; join: SQL } {
  if (!terms.length) return { columns: sql`'{}'::text[], '{}'::text[], '{}'::text[]`, join: sql`` };
  const hits = (field: string) => sql.raw(`array(select w.term from words w where hf.${field} @@ w.tq)`);
  return {
    columns: sql`${hits('title')}, ${hits('tags')}, ${hits('description')}`,
    join: sql.raw(`cross join lateral (select ts_filter(g.search_tsv, '{a}') as title, ts_filter(g.search_tsv, '{b}') as tags,
      ts_filter(g.search_tsv, '{c,d}') as description) hf`),
  };
}

function wordsCte(terms: string[]): SQL {
  return sql`words as (select t.term, plainto_tsquery('english', t.term) as tq from unnest(${textArray(terms)}) as t(term) where numnode(plainto_tsquery('english', t.term)) > 0),`;
}

/**
 * The page: its gigs' columns (`g`), their ranking (`p`), the words that matched (pageHits) and
 * the time of the ranking, as one JSON array per row (`r`), in the order rankedRowOf reads. Each
 * a column of its own, 26 of them, postgres.js built every row by adding them one at a time,
 * which past ~18 turns a V8 object into a dictionary: 78 KB for a page of 21 rows, the largest
 * allocation of a search after its statement's text; one array each is 14 KB.
 */
function pageRow(hits: SQL, rankedAt: SQL): SQL {
  return sql`json_build_array(g.id, g.client_user_id, g.title, g.description, g.rate_cents, g.compensation_type,
  g.compensation_min_cents, g.compensation_max_cents, g.currency, g.tags, g.status, g.source, g.external_id, g.url,
  date_part('epoch', g.posted_at), p.signal, p.lexical_rank, p.skills_covered, p.compensation_fit,
  p.freshness, p.semantic, p.score, ${hits}, ${rankedAt}) as r`;
}

/** A row of the page (pageRow's array), as one object of a fixed shape. */
export function rankedRowOf(row: { r: unknown[] }): RankedRow {
  const r = row.r;
  return {
    id: r[0] as string,
    client_user_id: r[1] as string | null,
    title: r[2] as string,
    description: r[3] as string,
    rate_cents: r[4] as number | null,
    compensation_type: r[5] as CompensationType,
    compensation_min_cents: r[6] as number | null,
    compensation_max_cents: r[7] as number | null,
    currency: r[8] as string,
    tags: r[9] as string[],
    status: r[10] as string,
    source: r[11] as string,
    external_id: r[12] as string | null,
    url: r[13] as string | null,
    posted_epoch: r[14] as number,
    signal: r[15] as FeedbackSignal | null,
    lexical_rank: r[16] as number | null,
    skills_covered: r[17] as number | null,
    compensation_fit: r[18] as number | null,
    freshness: r[19] as number,
    semantic: r[20] as number | null,
    score: r[21] as number,
    title_hits: r[22] as string[],
    tag_hits: r[23] as string[],
    description_hits: r[24] as string[],
    ranked_at: (r[25] as string | null) ?? undefined,
  };
}

/**
 * True when the score falls with age among gigs of the same compensation fit: no text, no
 * semantic input, at most one requested skill (from `tags`, which every candidate then covers).
 * The posted_at indexes then give the order without scoring every gig that passes the filters.
 */
export function isFreshnessOrdered(plan: SearchPlan): boolean {
  return plan.websearch === null && plan.semantic === null && plan.requestedSkills.length <= 1;
}

/** The SQL of a plan's ranked page (the benchmark runs it bare). */
export function searchSql(plan: SearchPlan, neighbourIds: string[] = []): SQL {
  return isFreshnessOrdered(plan) ? freshnessOrderedQuery(plan) : rankedQuery(plan, neighbourIds);
}

/** The ranked page for a search plan: `take` rows, best first, after the cursor. */
export async function searchGigRows(db: Executor, plan: SearchPlan, neighbourIds: string[] = []): Promise<RankedRow[]> {
  return (await rowsOf<{ r: unknown[] }>(db, searchSql(plan, neighbourIds))).map(rankedRowOf);
}

/** Requested skills the gig's tags cover (scoring.ts: the skills part is this / their number). */
function coveredSql(requestedSkills: string[][]): SQL {
  return requestedSkills.length
    ? sql`(${sql.join(
        requestedSkills.map((forms) => sql`(g.tags && ${textArray(forms)})::int`),
        sql` + `,
      )})::float8`
    : sql`null::float8`;
}

/** compensationFit() of scoring.ts. */
function fitSql(min: number | null): SQL {
  return min !== null
    ? sql`case when ${PAY_LOW} >= ${min}::int then 1::float8 when ${PAY_HIGH} < ${min}::int then 0::float8
        else 0.5::float8 + 0.5::float8 * (${PAY_HIGH} - ${min}::int)::float8 / (${PAY_HIGH} - ${PAY_LOW})::float8 end`
    : sql`null::float8`;
}

/** structuredScore(): the sum in the same order as scoring.ts, over the parts that apply. */
function structuredSql(w: RankingWeights, skills: number, min: number | null, parts: { freshness: SQL; covered: SQL; fit: SQL }): SQL {
  let sum = sql`${k8(w.freshness)} * ${parts.freshness}`;
  let weight = w.freshness;
  if (skills) {
    sum = sql`${sum} + ${k8(w.skills)} * (${parts.covered} / ${k8(skills)})`;
    weight += w.skills;
  }
  if (min !== null) {
    sum = sql`${sum} + ${k8(w.compensation)} * ${parts.fit}`;
    weight += w.compensation;
  }
  return weight > 0 ? sql`(${sum}) / ${k8(weight)}` : sql`0::float8`;
}

/** fuse(): the weighted mean of the components that apply (semantic is null for a gig without an embedding). */
function fusedSql(w: RankingWeights, structured: SQL, lexical: SQL | null, semantic: SQL | null): SQL {
  let sum = sql`${k8(w.structured)} * ${structured}`;
  let weight = sql`${k8(w.structured)}`;
  if (lexical) {
    sum = sql`${sum} + ${k8(w.lexical)} * ${lexical}`;
    weight = sql`${weight} + ${k8(w.lexical)}`;
  }
  if (semantic) {
    sum = sql`${sum} + coalesce(${k8(w.semantic)} * greatest(${semantic}, 0::float8), 0::float8)`;
    weight = sql`${weight} + case when ${semantic} is null then 0::float8 else ${k8(w.semantic)} end`;
  }
  return sql`coalesce((${sum}) / nullif(${weight}, 0), 0)`;
}

/**
 * Fused score over the candidates. Candidates: with a text query, gigs matching a word (GIN on
 * search_tsv), carrying a skill named in q (GIN on tags) or among the semantic neighbours
 * (`neighbourIds`); without one, every gig that passes the filters.
 */
export function rankedQuery(plan: SearchPlan, neighbourIds: string[]): SQL {
  const w = plan.weights;
  const text = plan.websearch !== null;
  const requested = requestFilterConditions(plan.filters, { payIndex: !text });
  const filters = [OPEN, ...requested];
  const arms = plan.exhaustive ? [] : candidateArms(plan);
  const hits = pageHits(plan.hitTerms);
  // The candidates are read by id: through the primary key, not the status index.
  const where = [arms.length ? OPEN_BY_ROW : OPEN, ...requested, sql`(fb.signal is null or fb.signal <> 'hide')`];
  if (text) {
    const matches: SQL[] = [sql`g.search_tsv @@ tsq`];
    if (plan.recallTags.length) matches.push(sql`g.tags && ${textArray(plan.recallTags)}`);
    if (neighbourIds.length) matches.push(sql`g.id = any(${uuidArray(neighbourIds)})`);
    where.push(sql`(${sql.join(matches, sql` or `)})`);
  }
  // The caller's gigs with feedback and the semantic neighbours are scored whatever their age.
  const extra = [sql`(select gig_id from fb where signal <> 'hide')`];
  if (neighbourIds.length) extra.push(sql`(select unnest(${uuidArray(neighbourIds)}))`);
  const cand = arms.length
    ? candidatesCte({ arms, filters: plan.filters, where: filters, createdBefore: plan.createdBefore, extra })
    : sql``;
  const sem = plan.semantic;
  const semanticJoin = sem
    ? sql`left join gig_embeddings e on e.gig_id = g.id and e.model = ${sem.model} and e.dims = ${sem.dims}::int`
    : sql``;
  const rank = text
    ? sql`ts_rank(${sql.raw(`'{${FIELD_WEIGHTS.join(',')}}'::float4[]`)}, g.search_tsv, tsq, ${w.lexicalNormalization}::int)::float8`
    : sql`null::float8`;
  const min = plan.filters.minCompensationCents;
  const structured = structuredSql(w, plan.requestedSkills.length, min, {
    freshness: sql`freshness`,
    covered: sql`skills_covered`,
    fit: sql`compensation_fit`,
  });
  const lexical = text
    ? sql`(case when lexical_rank > 0 then lexical_rank / (lexical_rank + ${k8(w.lexicalSaturation)}) else 0::float8 end)`
    : null;
  const fused = fusedSql(w, structured, lexical, sem ? sql`semantic` : null);

  // Phase 1 (cand): each arm's newest gigs. Phase 2 (base): the full ranking over those only, under
  // the same conditions as if every gig had been a candidate. OFFSET 0 keeps `base` a real
  // subquery, so that ts_rank and friends run once per row; the score is plain arithmetic over
  // its columns. Only ids and scores are sorted; the page's few gigs are read in full at the end.
  return sql`
    with ${wordsCte(plan.hitTerms)}
    fb as (select gig_id, signal from discovery_feedback where user_id = ${plan.userId}::uuid),
    ${cand}
    base as (
      select g.id, fb.signal, ${rank} as lexical_rank, ${coveredSql(plan.requestedSkills)} as skills_covered,
        ${fitSql(min)} as compensation_fit, ${freshnessSql(w, plan.asOf)} as freshness,
        ${sem ? similaritySql(sem) : sql`null::float8`} as semantic
      from ${arms.length ? sql`cand join gigs g on g.id = cand.id` : sql`gigs g`}
      ${text ? sql`cross join websearch_to_tsquery('english', ${plan.websearch}) as tsq` : sql``}
      left join fb on fb.gig_id = g.id
      ${semanticJoin}
      where ${and(...where)}
      offset 0
    ),
    fusion as (select base.*, ${fused} as fused from base offset 0),
    scored as (select fusion.*, ${withFeedback(sql`fused`)} as score from fusion offset 0),
    p as (select * from scored ${afterCondition(plan.after)} order by score desc, id desc limit ${plan.take}::int)
    select ${pageRow(hits.columns, RANKED_AT)}
    from p join gigs g on g.id = p.id ${hits.join} order by p.score desc, p.id desc`;
}

/** The database's time in microseconds since the epoch (exact: extract gives a numeric), as text: a JSON number would be a float. */
const RANKED_AT = sql.raw(`(extract(epoch from now()) * 1000000)::int8::text`);

/**
 * The page when the score falls with age (isFreshnessOrdered). Three kinds of gig:
 * - those paid at or above the minimum all through (or with no minimum): the newest come
 *   straight from a posted_at index, as many as the page needs;
 * - those whose pay only reaches the minimum at its top (a partial fit): few, all scored;
 * - the caller's own few with feedback: scored, so up and down move them and hidden ones stay out.
 * The page is the best of the three, exactly as if every gig had been scored.
 */
function freshnessOrderedQuery(plan: SearchPlan): SQL {
  const w = plan.weights;
  const where = filterConditions(plan.filters);
  const min = plan.filters.minCompensationCents;
  const skills = plan.requestedSkills.length;
  const fresh = freshnessSql(w, plan.asOf);
  const fit = fitSql(min);
  const score = fusedSql(w, structuredSql(w, skills, min, { freshness: fresh, covered: sql`1::float8`, fit }), null, null);
  const newest = [...where, sql`g.id not in (select gig_id from fb)`];
  const partial = [...where, sql`g.id not in (select gig_id from fb)`];
  if (min !== null) {
    newest.push(sql`${PAY_LOW} >= ${min}::int`);
    partial.push(sql`${PAY_LOW} < ${min}::int`, sql`${PAY_RANGE} @> ${min}::int`);
  }
  if (plan.after) {
    const { score: s, id } = plan.after;
    const after = sql`(${score} < ${f8(s)} or (${score} = ${f8(s)} and g.id < ${id}::uuid))`;
    newest.push(after);
    partial.push(after);
    // Among full fits the score is freshness scaled: the posted_at where it equals the cursor's
    // (a second later, for rounding) lets the index scan start there.
    const total = w.freshness + (skills ? w.skills : 0) + (min !== null ? w.compensation : 0);
    const freshAtCursor = (s * total - (skills ? w.skills : 0) - (min !== null ? w.compensation : 0)) / w.freshness;
    if (freshAtCursor > 0 && freshAtCursor < 1) {
      const ageDays = Math.log(freshAtCursor) / (-Math.LN2 / w.freshnessHalfLifeDays);
      newest.push(sql`g.posted_at <= ${new Date(plan.asOf.getTime() - ageDays * 86_400_000 + 1000).toISOString()}::timestamptz`);
    }
  }
  return sql`
    with fb as (select gig_id, signal from discovery_feedback where user_id = ${plan.userId}::uuid),
    u as (
      (select g.id, null::text as signal, ${fit} as compensation_fit, ${fresh} as freshness, ${score} as score from gigs g
        where ${and(...newest)} order by g.posted_at desc, g.id desc limit ${plan.take}::int)
      ${
        min !== null
          ? sql`union all
      (select g.id, null::text, ${fit}, ${fresh}, ${score} from gigs g where ${and(...partial)})`
          : sql``
      }
      union all
      (select g.id, fb.signal, ${fit}, ${fresh}, ${withFeedback(score)} from gigs g join fb on fb.gig_id = g.id
        where ${and(...where, sql`fb.signal <> 'hide'`)})
    ),
    p as (select u.id, u.signal, null::float8 as lexical_rank, ${skills ? sql`1::float8` : sql`null::float8`} as skills_covered,
      u.compensation_fit, u.freshness, null::float8 as semantic, u.score
      from u ${afterCondition(plan.after)} order by score desc, id desc limit ${plan.take}::int)
    select ${pageRow(pageHits([]).columns, sql`null`)}
    from p join gigs g on g.id = p.id order by p.score desc, p.id desc`;
}

function vectorLiteral(v: number[]): string {
  return `[${v.join(',')}]`;
}

/** Cosine similarity of the gig's embedding (joined as `e`) and the query's unit vector. */
function similaritySql(s: SemanticInput): SQL {
  if (s.pgvector) {
    const type = sql.raw(`vector(${Math.trunc(s.dims)})`);
    return sql`(1 - (e.embedding::${type} <=> ${vectorLiteral(s.vector)}::${type}))::float8`;
  }
  // No pgvector: an exact dot product of unit vectors.
  return sql`(select sum(a::float8 * b) from unnest(e.embedding, ${`{${s.vector.join(',')}}`}::float8[]) as t(a, b))`;
}

/**
 * The gigs nearest in meaning that pass the filters: pgvector's HNSW index where it exists (within
 * a transaction that widens hnsw.ef_search), an exact scan where it does not.
 */
export async function semanticNeighbours(db: Executor, userId: string, filters: GigFilters, s: SemanticInput): Promise<string[]> {
  const where = [
    ...filterConditions(filters),
    sql`e.model = ${s.model}`,
    sql`e.dims = ${s.dims}::int`,
    sql`not exists (select 1 from discovery_feedback f where f.user_id = ${userId}::uuid and f.gig_id = g.id and f.signal = 'hide')`,
  ];
  if (s.pgvector) {
    const type = sql.raw(`vector(${Math.trunc(s.dims)})`);
    const query = sql`select e.gig_id as id from gig_embeddings e join gigs g on g.id = e.gig_id
      where ${and(...where)} order by e.embedding::${type} <=> ${vectorLiteral(s.vector)}::${type} limit ${s.neighbours}::int`;
    return db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local hnsw.ef_search = ${Math.max(40, Math.min(1000, Math.trunc(s.neighbours)))}`));
      return (await rowsOf<{ id: string }>(tx, query)).map((r) => r.id);
    });
  }
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`select e.gig_id as id from gig_embeddings e join gigs g on g.id = e.gig_id
    where ${and(...where)} order by ${similaritySql(s)} desc limit ${s.neighbours}::int`,
  );
  return rows.map((r) => r.id);
}

/** The ranked page, semantic neighbours included when the plan has a query vector. */
export async function searchGigRowsWithNeighbours(db: Executor, plan: SearchPlan): Promise<RankedRow[]> {
  if (!plan.semantic || plan.websearch === null) return searchGigRows(db, plan);
  return searchGigRows(db, plan, await semanticNeighbours(db, plan.userId, plan.filters, plan.semantic));
}
