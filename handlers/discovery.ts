// Discovery: ranked search over native and external gigs, recommendations, and feedback that
// changes the caller's later results. The ranking lives in src/search, the rest in
// src/services/discovery.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf, principalOf } from '../src/auth/authenticate.ts';
import { DEFAULT_LIMIT } from '../src/http/pagination.ts';
import { searchGigs } from '../src/search/service.ts';
import { recommendGigs } from '../src/search/recommendations.ts';
import { recommendWorkersForGig, sendFeedback } from '../src/services/discovery.ts';

export function discoveryHandlers(): Handlers<'searchGigs' | 'recommendGigs' | 'recommendWorkers' | 'sendDiscoveryFeedback'> {
  return {
    async searchGigs(request, _reply, { ctx }) {
      const { userId } = principalOf(request);
      const q = request.query;
      const result = await searchGigs(ctx, userId, {
        q: q.q,
        tags: q.tags,
        minCompensationCents: q.min_compensation_cents,
        compensationType: q.compensation_type,
        currency: q.currency,
        sources: q.sources,
        limit: q.limit ?? DEFAULT_LIMIT,
        cursor: q.cursor,
      });
      return { data: result.data, next_cursor: result.next_cursor, semantic: result.semantic, notices: result.notices };
    },

    async recommendGigs(request, _reply, { ctx }) {
      const { userId } = principalOf(request);
      return recommendGigs(ctx.db, userId, { limit: request.query.limit ?? DEFAULT_LIMIT, cursor: request.query.cursor });
    },

    async recommendWorkers(request, _reply, { ctx }) {
      const q = request.query;
      return recommendWorkersForGig(ctx, actorOf(request), q.gig_id, { limit: q.limit ?? DEFAULT_LIMIT, cursor: q.cursor });
    },

    async sendDiscoveryFeedback(request, _reply, { ctx }) {
      const { gig_id: gigId, signal, context } = request.body;
      return sendFeedback(ctx, actorOf(request), { gigId, signal, context: context ?? null });
    },
  };
}
