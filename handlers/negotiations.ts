// Negotiations: start (with or without a first round), rounds, agree, cancel, contact share.
// The rules live in src/services/negotiations.ts; these shape requests and responses.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as negotiations from '../src/services/negotiations.ts';
import { contractView } from '../src/services/contracts.ts';
import type { components } from '../src/generated/api.d.ts';

/** The terms of a round: a RoundTerms body, or the terms part of a NegotiateRequest. */
type TermsBody = Omit<components['schemas']['NegotiateRequest'], 'gig_id' | 'worker_user_id'>;

function termsOf(body: TermsBody): negotiations.ProposedTerms {
  return {
    rateCents: body.rate_cents ?? null,
    hoursPerWeek: body.hours_per_week ?? null,
    startDate: body.start_date ?? null,
    payoutDelayDays: body.payout_delay_days ?? null,
    currency: body.currency,
    milestones: (body.milestones ?? []).map((m) => ({ title: m.title.trim(), amount_cents: m.amount_cents, due_date: m.due_date ?? null })),
    notes: body.notes ?? '',
  };
}

export function negotiationHandlers(): Handlers<
  | 'listNegotiations'
  | 'createNegotiation'
  | 'negotiate'
  | 'getNegotiation'
  | 'proposeRound'
  | 'agreeNegotiation'
  | 'cancelNegotiation'
  | 'shareContact'
> {
  return {
    async listNegotiations(request, _reply, { ctx }) {
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await negotiations.listNegotiations(ctx, actorOf(request), {
        status: q.status,
        gigId: q.gig_id,
        limit,
        beforeId: decodeCursor(q.cursor),
      });
      return page(rows, limit, present);
    },

    async createNegotiation(request, _reply, { ctx }) {
      const actor = actorOf(request);
      const negotiation = await negotiations.startNegotiation(ctx, actor, {
        gigId: request.body.gig_id,
        workerUserId: request.body.worker_user_id,
      });
      return negotiations.negotiationView(ctx, actor, negotiation);
    },

    async negotiate(request, _reply, { ctx }) {
      const actor = actorOf(request);
      const { gig_id, worker_user_id, ...terms } = request.body;
      const negotiation = await negotiations.startNegotiation(ctx, actor, {
        gigId: gig_id,
        workerUserId: worker_user_id,
        firstRound: termsOf(terms),
      });
      return negotiations.negotiationView(ctx, actor, negotiation);
    },

    async getNegotiation(request, _reply, { ctx }) {
      const actor = actorOf(request);
      return negotiations.negotiationView(ctx, actor, await negotiations.getNegotiation(ctx, actor, request.params.id));
    },

    async proposeRound(request, reply, { ctx }) {
      const actor = actorOf(request);
      const { negotiation } = await negotiations.proposeRound(ctx, actor, request.params.id, termsOf(request.body));
      reply.code(201);
      return await negotiations.negotiationView(ctx, actor, negotiation);
    },

    async agreeNegotiation(request, _reply, { ctx }) {
      const actor = actorOf(request);
      const { negotiation, contract } = await negotiations.agree(ctx, actor, request.params.id);
      return { negotiation: await negotiations.negotiationView(ctx, actor, negotiation), contract: await contractView(ctx, contract) };
    },

    async cancelNegotiation(request, _reply, { ctx }) {
      const actor = actorOf(request);
      return negotiations.negotiationView(ctx, actor, await negotiations.cancelNegotiation(ctx, actor, request.params.id));
    },

    async shareContact(request, _reply, { ctx }) {
      const actor = actorOf(request);
      return negotiations.negotiationView(ctx, actor, await negotiations.shareContact(ctx, actor, request.params.id));
    },
  };
}
