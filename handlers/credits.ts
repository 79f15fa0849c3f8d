// Credits: the caller's balance and tier, deductions, and their ledger. Rules in src/services/credits.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import { presentDeduction } from '../src/presenters/credits.ts';
import * as credits from '../src/services/credits.ts';

export function creditHandlers(): Handlers<'getCredits' | 'deductCredits' | 'listCreditTransactions'> {
  return {
    getCredits: (request, _reply, { ctx }) => credits.getCredits(ctx, actorOf(request)),

    async deductCredits(request, _reply, { ctx }) {
      const { amount, reason, reference_id } = request.body;
      return presentDeduction(await credits.deduct(ctx, actorOf(request), { amount, reason, referenceId: reference_id ?? null }));
    },

    async listCreditTransactions(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await credits.listEntries(ctx, actorOf(request), {
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, present);
    },
  };
}
