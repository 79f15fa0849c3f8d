// Discovery's storage: the vocabulary the query parser reads, feedback, and embeddings. The
// ranking SQL itself lives beside the scoring it mirrors, in src/search/ranking-sql.ts.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { discoveryFeedback, gigEmbeddings, queryEmbeddings } from '../schema.ts';
import { rowsOf, textArray } from '../sql.ts';
import type { FeedbackSignal } from '../schema/column-values.ts';

// --- vocabulary -------------------------------------------------------------------------------

/**
 * Every tag on an open gig: the words q can name as skills. Read from open_gig_tags (migration
 * 0014) one tag at a time, each the next above the last in its index (a skip scan: one probe per
 * distinct tag), where `select distinct unnest(tags)` over the open gigs read every one of them
 * (docs/performance.md, Discovery search).
 */
export async function openGigTags(db: Executor): Promise<string[]> {
  const rows = await rowsOf<{ tag: string }>(
    db,
    sql`with recursive t(tag) as (
      (select tag from open_gig_tags order by tag limit 1)
      union all
      select (select o.tag from open_gig_tags o where o.tag > t.tag order by o.tag limit 1) from t where t.tag is not null
    ) select tag from t where tag is not null`,
  );
  return rows.map((r) => r.tag);
}

/**
 * Each word's share of gigs, from the planner's statistics on search_tsv (ANALYZE keeps the most
 * common lexemes with their frequency); a word missing from them is rare. A word of several
 * lexemes counts as its most common one.
 */
export async function wordShares(
  db: Executor,
  words: string[],
  column: 'search_tsv' | 'search_head' = 'search_tsv',
): Promise<Map<string, number>> {
  if (!words.length) return new Map();
  const rows = await rowsOf<{ word: string; share: number | null }>(
    db,
    sql`
    with s as (
      select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs from pg_stats
      where schemaname = current_schema() and tablename = 'gigs' and attname = ${column}
    )
    select w.word, (select max(s.freqs[array_position(s.elems, l.lexeme)])::float8 from s, unnest(to_tsvector('english', w.word)) l) as share
    from unnest(${textArray(words)}) as w(word)`,
  );
  return new Map(rows.map((r) => [r.word, r.share ?? 0]));
}

/** Each tag's share of gigs, from the planner's statistics on tags (as wordShares); 0 when rare or unknown. */
export async function tagShares(db: Executor, tags: string[]): Promise<Map<string, number>> {
  if (!tags.length) return new Map();
  const rows = await rowsOf<{ tag: string; share: number | null }>(
    db,
    sql`
    with s as (
      select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs from pg_stats
      where schemaname = current_schema() and tablename = 'gigs' and attname = 'tags'
    )
    select t.tag, (select s.freqs[array_position(s.elems, t.tag)]::float8 from s) as share
    from unnest(${textArray(tags)}) as t(tag)`,
  );
  return new Map(rows.map((r) => [r.tag, r.share ?? 0]));
}

/**
 * Each value's share of gigs in a column the filters compare (`column:value` keys), from the
 * planner's most common values; 0 when rare or unknown.
 */
export async function valueShares(db: Executor, keys: string[]): Promise<Map<string, number>> {
  if (!keys.length) return new Map();
  const rows = await rowsOf<{ key: string; share: number | null }>(
    db,
    sql`
    with s as (
      select attname::text as col, most_common_vals::text::text[] as vals, most_common_freqs as freqs from pg_stats
      where schemaname = current_schema() and tablename = 'gigs' and attname in ('compensation_type', 'currency', 'source')
    )
    select k.key, (select s.freqs[array_position(s.vals, split_part(k.key, ':', 2))]::float8 from s where s.col = split_part(k.key, ':', 1)) as share
    from unnest(${textArray(keys)}) as k(key)`,
  );
  return new Map(rows.map((r) => [r.key, r.share ?? 0]));
}

/** The planner's count of gigs (pg_class.reltuples, kept by ANALYZE and VACUUM); 0 before the first. */
export async function estimatedGigs(db: Executor): Promise<number> {
  const rows = await rowsOf<{ n: number }>(db, sql`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'gigs'::regclass`);
  return Number(rows[0]?.n ?? 0);
}

/** Whether pgvector is installed in this database. */
export async function hasPgvector(db: Executor): Promise<boolean> {
  const rows = await rowsOf<{ present: boolean }>(db, sql`select exists (select 1 from pg_extension where extname = 'vector') as present`);
  return rows[0]?.present === true;
}

// --- feedback ---------------------------------------------------------------------------------

export interface FeedbackRow {
  gigId: string;
  signal: FeedbackSignal;
  context: string | null;
  updatedAt: Date;
}

/** The user's latest signal on the gig replaces any earlier one. */
export async function upsertFeedback(
  db: Executor,
  userId: string,
  gigId: string,
  signal: FeedbackSignal,
  context: string | null,
): Promise<FeedbackRow> {
  const now = new Date();
  const [row] = await db
    .insert(discoveryFeedback)
    .values({ userId, gigId, signal, context, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: [discoveryFeedback.userId, discoveryFeedback.gigId], set: { signal, context, updatedAt: now } })
    .returning();
  return { gigId: row!.gigId, signal: row!.signal, context: row!.context, updatedAt: row!.updatedAt };
}

export async function deleteFeedback(db: Executor, userId: string, gigId: string): Promise<boolean> {
  const rows = await db
    .delete(discoveryFeedback)
    .where(and(eq(discoveryFeedback.userId, userId), eq(discoveryFeedback.gigId, gigId)))
    .returning({ gigId: discoveryFeedback.gigId });
  return rows.length > 0;
}

// --- embeddings -------------------------------------------------------------------------------

export async function gigEmbeddingHash(db: Executor, gigId: string, model: string): Promise<string | undefined> {
  const [row] = await db
    .select({ hash: gigEmbeddings.contentHash })
    .from(gigEmbeddings)
    .where(and(eq(gigEmbeddings.gigId, gigId), eq(gigEmbeddings.model, model)))
    .limit(1);
  return row?.hash;
}

export async function upsertGigEmbedding(
  db: Executor,
  gigId: string,
  model: string,
  embedding: number[],
  contentHash: string,
): Promise<void> {
  const values = { gigId, model, dims: embedding.length, embedding, contentHash, updatedAt: new Date() };
  await db
    .insert(gigEmbeddings)
    .values(values)
    .onConflictDoUpdate({
      target: gigEmbeddings.gigId,
      set: { model, dims: embedding.length, embedding, contentHash, updatedAt: values.updatedAt },
    });
}

/** Open gigs without an embedding from `model` (new, changed model, or imported by a connector). */
export async function gigsWithoutEmbedding(
  db: Executor,
  model: string,
  limit: number,
): Promise<{ id: string; title: string; description: string; tags: string[] }[]> {
  return rowsOf(
    db,
    sql`select g.id, g.title, g.description, g.tags from gigs g
    where g.status = 'open' and not exists (select 1 from gig_embeddings e where e.gig_id = g.id and e.model = ${model})
    order by g.id desc limit ${limit}::int`,
  );
}

/** Where pgvector exists, an HNSW index for this dimension (partial, so each model size has its own). */
export async function ensureVectorIndex(db: Executor, dims: number): Promise<void> {
  const d = Math.trunc(dims);
  if (!(d > 0 && d <= 16000)) return;
  await db.execute(
    sql.raw(`create index if not exists gig_embeddings_hnsw_${d} on gig_embeddings
    using hnsw ((embedding::vector(${d})) vector_cosine_ops) where dims = ${d}`),
  );
}

export async function cachedQueryEmbedding(db: Executor, model: string, queryHash: string): Promise<number[] | undefined> {
  const [row] = await db
    .select({ embedding: queryEmbeddings.embedding })
    .from(queryEmbeddings)
    .where(and(eq(queryEmbeddings.model, model), eq(queryEmbeddings.queryHash, queryHash)))
    .limit(1);
  return row?.embedding;
}

export async function cacheQueryEmbedding(db: Executor, model: string, queryHash: string, embedding: number[]): Promise<void> {
  await db.insert(queryEmbeddings).values({ model, queryHash, dims: embedding.length, embedding }).onConflictDoNothing();
}

export async function deleteOldQueryEmbeddings(db: Executor, olderThan: Date): Promise<void> {
  await db.execute(sql`delete from query_embeddings where created_at < ${olderThan.toISOString()}::timestamptz`);
}
