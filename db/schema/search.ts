// Discovery (docs/architecture.md §8): users' feedback on gigs, gig embeddings and the query-embedding cache.
//
// The gigs table itself carries what lexical search and the filters need, added by the
// hand-written migration `0003_search_gigs_indexes.sql` (drizzle-kit cannot express it): the
// stored generated column `search_tsv` (title A, tags B, description C, scope D), its GIN index,
// a GIN index on `tags`, and partial btree indexes (status = 'open') for the filters and for
// freshness ordering. Drizzle's `gigs` table does not declare `search_tsv`, so ordinary selects
// never carry it. Likewise `open_gig_tags` (migration 0014: one row per tag of each open gig, kept
// by a trigger on gigs) is read only by candidates-sql.ts and is not declared here.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, real, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, oneOf, updatedAt } from './columns.ts';
import { FEEDBACK_SIGNALS } from './column-values.ts';
import { users } from './identity.ts';
import { gigs } from './gigs.ts';

/**
 * A user's latest signal on a gig (one row per user and gig; the latest signal wins). `hide`
 * removes the gig from that user's results; `up` and `down` move it.
 */
export const discoveryFeedback = pgTable(
  'discovery_feedback',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    gigId: uuid('gig_id')
      .notNull()
      .references(() => gigs.id, { onDelete: 'cascade' }),
    signal: text('signal', { enum: FEEDBACK_SIGNALS }).notNull(),
    context: text('context'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.gigId] }),
    index('discovery_feedback_gig_idx').on(t.gigId),
    check('discovery_feedback_signal_check', oneOf(t.signal, FEEDBACK_SIGNALS)),
    check('discovery_feedback_context_check', sql`${t.context} is null or ${t.context} in ('search', 'recommendation')`),
  ],
);

/**
 * One embedding per gig, for the configured model. Stored as real[] (unit length) on every
 * database; where pgvector exists, an HNSW index over `embedding::vector(dims)` serves nearest
 * neighbours (created per dimension at run time, since the model decides it).
 */
export const gigEmbeddings = pgTable(
  'gig_embeddings',
  {
    gigId: uuid('gig_id')
      .primaryKey()
      .references(() => gigs.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    dims: integer('dims').notNull(),
    embedding: real('embedding').array().notNull(),
    /** SHA-256 of the text that was embedded: an unchanged gig is not embedded again. */
    contentHash: text('content_hash').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [index('gig_embeddings_model_idx').on(t.model, t.dims)],
);

/** Query embeddings, cached by model and normalized query text (SHA-256); dropped after 30 days. */
export const queryEmbeddings = pgTable(
  'query_embeddings',
  {
    model: text('model').notNull(),
    queryHash: text('query_hash').notNull(),
    dims: integer('dims').notNull(),
    embedding: real('embedding').array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.model, t.queryHash] }), index('query_embeddings_created_at_idx').on(t.createdAt)],
);
