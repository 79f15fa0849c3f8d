// Gig embeddings for semantic search, when EMBEDDINGS_URL is set: one gig's (enqueued in the
// transaction that creates or edits it), and the backfill of open gigs without one. Both are
// idempotent: an embedding whose text has not changed is not computed again.
import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { gigs } from '../../db/schema.ts';
import {
  deleteOldQueryEmbeddings,
  ensureVectorIndex,
  gigEmbeddingHash,
  gigsWithoutEmbedding,
  upsertGigEmbedding,
} from '../../db/repositories/search.ts';
import type { EmbeddingsSettings } from '../config.ts';
import type { Context } from '../context.ts';
import { enqueueInTransaction, GIG_EMBEDDING_QUEUE } from '../job-system/queues.ts';
import { embed, gigText, sha256 } from './embeddings.ts';
import { usesPgvector } from './vocabulary.ts';

/** Gig texts per request to the endpoint. */
const BATCH = 32;
/** Batches per backfill run, so that one run stays short. */
const MAX_BATCHES = 20;
const INDEXED = new WeakMap<Db, Set<number>>();

/** Stores the embeddings and, where pgvector exists, makes sure the HNSW index for their size exists. */
async function store(db: Db, settings: EmbeddingsSettings, items: { id: string; text: string }[]): Promise<void> {
  if (!items.length) return;
  const vectors = await embed(
    settings,
    items.map((i) => i.text),
    Math.max(settings.timeoutMs, 30_000),
  );
  for (const [i, item] of items.entries()) {
    await upsertGigEmbedding(db, item.id, settings.model, vectors[i]!, sha256(item.text));
  }
  const dims = vectors[0]!.length;
  const done = INDEXED.get(db) ?? new Set<number>();
  if (!done.has(dims) && (await usesPgvector(db))) {
    await ensureVectorIndex(db, dims);
    done.add(dims);
    INDEXED.set(db, done);
  }
}

/** Embeds one gig unless its embedding already matches its text. */
export async function embedGig(db: Db, settings: EmbeddingsSettings, gigId: string): Promise<void> {
  const [gig] = await db
    .select({ id: gigs.id, title: gigs.title, description: gigs.description, tags: gigs.tags })
    .from(gigs)
    .where(eq(gigs.id, gigId))
    .limit(1);
  if (!gig) return; // deleted since
  const text = gigText(gig);
  if ((await gigEmbeddingHash(db, gig.id, settings.model)) === sha256(text)) return;
  await store(db, settings, [{ id: gig.id, text }]);
}

/** Embeds open gigs that have no embedding from the model; returns how many it embedded. */
export async function embedMissingGigs(db: Db, settings: EmbeddingsSettings, maxBatches = MAX_BATCHES): Promise<number> {
  let count = 0;
  for (let b = 0; b < maxBatches; b++) {
    const missing = await gigsWithoutEmbedding(db, settings.model, BATCH);
    if (!missing.length) break;
    await store(
      db,
      settings,
      missing.map((g) => ({ id: g.id, text: gigText(g) })),
    );
    count += missing.length;
    if (missing.length < BATCH) break;
  }
  return count;
}

/**
 * Enqueues the gig's embedding in the caller's transaction (so it exists exactly when the gig
 * does); nothing when no endpoint is configured.
 */
export async function enqueueGigEmbedding(ctx: Pick<Context, 'config' | 'jobs'>, tx: Tx, gigId: string): Promise<void> {
  if (!ctx.config.embeddings) return;
  await enqueueInTransaction(ctx.jobs, tx, GIG_EMBEDDING_QUEUE, { gig_id: gigId });
}

/** The backfill job's work: missing embeddings, then query embeddings older than 30 days. */
export async function backfillEmbeddings(db: Db, settings: EmbeddingsSettings): Promise<number> {
  const count = await embedMissingGigs(db, settings);
  await deleteOldQueryEmbeddings(db, new Date(Date.now() - 30 * 86_400_000));
  return count;
}
