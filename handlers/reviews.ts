// Reviews: a party reviews the other party of a completed contract, sees the contract's reviews
// (double-blind), and anyone signed in lists a user's published ones. Rules in src/services/reviews.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as reviews from '../src/services/reviews.ts';

export function reviewHandlers(): Handlers<'createContractReview' | 'getContractReviews' | 'listProfileReviews'> {
  return {
    async createContractReview(request, reply, { ctx }) {
      const { rating, text } = request.body;
      const view = await reviews.submitReview(ctx, actorOf(request), request.params.id, { rating, text });
      reply.code(201);
      return view;
    },

    getContractReviews: (request, _reply, { ctx }) => reviews.getContractReviews(ctx, actorOf(request), request.params.id),

    async listProfileReviews(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await reviews.listProfileReviews(ctx, request.params.userId, {
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, present);
    },
  };
}
