// Gig embeddings for semantic search (src/search/gig-embeddings.ts), when EMBEDDINGS_URL is set:
// - `gig-embedding` {gig_id}: enqueued in the transaction that creates or updates a gig;
// - `gig-embeddings-backfill`, every 5 minutes: open gigs without an embedding from the configured
//   model (external gigs from the connectors, gigs from before the endpoint was configured, a
//   changed model), in batches; and query embeddings older than 30 days are dropped.
import type { Context } from '../src/context.ts';
import { backfillEmbeddings, embedGig } from '../src/search/gig-embeddings.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { EMBEDDINGS_BACKFILL_QUEUE, GIG_EMBEDDING_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';

export function embeddingJobs(ctx: Context): JobDefinition<any>[] {
  const settings = ctx.config.embeddings;
  return [
    {
      name: GIG_EMBEDDING_QUEUE,
      // One request to the endpoint (at most 30 s).
      expireInSeconds: 120,
      async handler(data: QueuePayloads[typeof GIG_EMBEDDING_QUEUE]) {
        if (settings) await embedGig(ctx.db, settings, data.gig_id);
      },
    },
    {
      name: EMBEDDINGS_BACKFILL_QUEUE,
      // Up to 20 batches, each one request of at most 30 s.
      expireInSeconds: 600,
      cron: '*/5 * * * *',
      async handler() {
        if (!settings) return;
        const count = await backfillEmbeddings(ctx.db, settings);
        if (count) ctx.log.info({ count }, 'gig embeddings computed');
      },
    },
  ];
}
