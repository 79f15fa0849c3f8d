// Discovery: ranked search over native and external gigs, recommendations, and feedback that
// changes the caller's later results (DESIGN §8). The ranking lives in src/search.
import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { notFound } from '../src/errors.ts';
import { DEFAULT_LIMIT } from '../src/http/pagination.ts';
import { assertClientOf } from '../src/domain/gig.ts';
import { findVisibleGig } from '../db/repositories/gigs.ts';
import { deleteFeedback, upsertFeedback } from '../db/repositories/search.ts';
import { isForeignKeyViolation } from '../db/errors.ts';
import { searchGigs } from '../src/search/service.ts';
import { recommendGigs, recommendWorkers } from '../src/search/recommendations.ts';

/** A comma-separated parameter as a list (blanks dropped). */
const commaList = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** Nothing pays more than a 32-bit column holds: a larger minimum means the same as this one. */
const MAX_CENTS = 2_147_483_647;

export function discoveryHandlers(ctx: AppContext): Handlers<'searchGigs' | 'recommendGigs' | 'recommendWorkers' | 'sendDiscoveryFeedback'> {
  return {
    async searchGigs(request) {
      const { userId } = principalOf(request);
      const q = request.query;
      const result = await searchGigs({ db: ctx.db, embeddings: ctx.config.embeddings }, userId, {
        q: q.q,
        tags: commaList(q.tags),
        minCompensationCents: q.min_compensation_cents === undefined ? undefined : Math.min(q.min_compensation_cents, MAX_CENTS),
        compensationType: q.compensation_type,
        currency: q.currency,
        sources: commaList(q.sources),
        limit: q.limit ?? DEFAULT_LIMIT,
        cursor: q.cursor,
      });
      return { data: result.data, next_cursor: result.next_cursor, semantic: result.semantic, notices: result.notices };
    },

    async recommendGigs(request) {
      const { userId } = principalOf(request);
      return recommendGigs(ctx.db, userId, { limit: request.query.limit ?? DEFAULT_LIMIT, cursor: request.query.cursor });
    },

    async recommendWorkers(request) {
      const { userId } = principalOf(request);
      const q = request.query;
      const gig = await findVisibleGig(ctx.db, userId, q.gig_id);
      if (!gig) throw notFound('gig');
      assertClientOf(gig, userId, 'get worker recommendations for it');
      return recommendWorkers(ctx.db, { id: gig.id, clientUserId: gig.clientUserId!, tags: gig.tags }, { limit: q.limit ?? DEFAULT_LIMIT, cursor: q.cursor });
    },

    async sendDiscoveryFeedback(request) {
      const { userId } = principalOf(request);
      const { gig_id: gigId, signal, context } = request.body;
      const gig = await findVisibleGig(ctx.db, userId, gigId);
      if (!gig) throw notFound('gig');
      if (signal === 'clear') {
        await deleteFeedback(ctx.db, userId, gigId);
        return { gig_id: gigId, signal: null, context: null, updated_at: new Date().toISOString() };
      }
      const row = await upsertFeedback(ctx.db, userId, gigId, signal, context ?? null).catch((err: unknown) => {
        throw isForeignKeyViolation(err, 'discovery_feedback_gig_id_gigs_id_fk') ? notFound('gig') : err; // deleted meanwhile
      });
      return { gig_id: row.gigId, signal: row.signal, context: row.context as 'search' | 'recommendation' | null, updated_at: row.updatedAt.toISOString() };
    },
  };
}
