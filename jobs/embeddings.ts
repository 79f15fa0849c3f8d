// Gig embeddings for semantic search (DESIGN §8), when EMBEDDINGS_URL is set:
// - `gig-embedding` {gig_id}: enqueued in the transaction that creates or updates a gig;
// - `gig-embeddings-backfill`, every 5 minutes: open gigs without an embedding from the configured
//   model (external gigs from the connectors, gigs from before the endpoint was configured, a
//   changed model), in batches; and query embeddings older than 30 days are dropped.
// Both are idempotent: an embedding whose text has not changed is not computed again.
import { eq, sql } from 'drizzle-orm';
import { fromDrizzle, type PgBoss } from 'pg-boss';
import type { Db, Executor } from '../db/client.ts';
import { gigs } from '../db/schema.ts';
import {
  deleteOldQueryEmbeddings, ensureVectorIndex, gigEmbeddingHash, gigsWithoutEmbedding, upsertGigEmbedding,
} from '../db/repositories/search.ts';
import type { EmbeddingsSettings } from '../src/config.ts';
import { embed, gigText, sha256 } from '../src/search/embeddings.ts';
import { usesPgvector } from '../src/search/vocabulary.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export const GIG_EMBEDDING_QUEUE = 'gig-embedding';
export const EMBEDDINGS_BACKFILL_QUEUE = 'gig-embeddings-backfill';

/** Gig texts per request to the endpoint. */
const BATCH = 32;
/** Batches per backfill run, so that one run stays short. */
const MAX_BATCHES = 20;
const INDEXED = new WeakMap<Db, Set<number>>();

/** Stores the embeddings and, where pgvector exists, makes sure the HNSW index for their size exists. */
async function store(db: Db, settings: EmbeddingsSettings, items: { id: string; text: string }[]): Promise<void> {
  if (!items.length) return;
  const vectors = await embed(settings, items.map((i) => i.text), Math.max(settings.timeoutMs, 30_000));
  for (const [i, item] of items.entries()) {
    await upsertGigEmbedding(db, item.id, settings.model, vectors[i]!, sha256(item.text));
  }
  const dims = vectors[0]!.length;
  const done = INDEXED.get(db) ?? new Set<number>();
  if (!done.has(dims) && await usesPgvector(db)) {
    await ensureVectorIndex(db, dims);
    done.add(dims);
    INDEXED.set(db, done);
  }
}

/** Embeds one gig unless its embedding already matches its text. */
export async function embedGig(db: Db, settings: EmbeddingsSettings, gigId: string): Promise<void> {
  const [gig] = await db.select({ id: gigs.id, title: gigs.title, description: gigs.description, tags: gigs.tags })
    .from(gigs).where(eq(gigs.id, gigId)).limit(1);
  if (!gig) return; // deleted since
  const text = gigText(gig);
  if (await gigEmbeddingHash(db, gig.id, settings.model) === sha256(text)) return;
  await store(db, settings, [{ id: gig.id, text }]);
}

/** Embeds open gigs that have no embedding from the model; returns how many it embedded. */
export async function embedMissingGigs(db: Db, settings: EmbeddingsSettings, maxBatches = MAX_BATCHES): Promise<number> {
  let count = 0;
  for (let b = 0; b < maxBatches; b++) {
    const missing = await gigsWithoutEmbedding(db, settings.model, BATCH);
    if (!missing.length) break;
    await store(db, settings, missing.map((g) => ({ id: g.id, text: gigText(g) })));
    count += missing.length;
    if (missing.length < BATCH) break;
  }
  return count;
}

/**
 * Enqueues the gig's embedding in the caller's transaction (so it exists exactly when the gig
 * does); nothing when no endpoint is configured.
 */
export async function enqueueGigEmbedding(ctx: { config: { embeddings: EmbeddingsSettings | undefined }; jobs: { boss: PgBoss } }, tx: Executor, gigId: string): Promise<void> {
  if (!ctx.config.embeddings) return;
  await ctx.jobs.boss.send(GIG_EMBEDDING_QUEUE, { gig_id: gigId }, { db: fromDrizzle(tx as never, sql) } as never);
}

export function embeddingJobs(ctx: JobContext): JobDefinition<any>[] {
  const settings = ctx.config.embeddings;
  return [
    {
      name: GIG_EMBEDDING_QUEUE,
      async handler(data: { gig_id: string }) {
        if (settings) await embedGig(ctx.db, settings, data.gig_id);
      },
    },
    {
      name: EMBEDDINGS_BACKFILL_QUEUE,
      cron: '*/5 * * * *',
      async handler() {
        if (!settings) return;
        const count = await embedMissingGigs(ctx.db, settings);
        await deleteOldQueryEmbeddings(ctx.db, new Date(Date.now() - 30 * 86_400_000));
        if (count) ctx.log.info({ count }, 'gig embeddings computed');
      },
    },
  ];
}
