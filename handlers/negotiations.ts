// Negotiations: start (with or without a first round), rounds, agree, cancel, contact share.
// The rules live in src/lifecycle/negotiations.ts; these shape requests and responses.
import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { notFound } from '../src/errors.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import type { Executor } from '../db/client.ts';
import * as negotiationsRepo from '../db/repositories/negotiations.ts';
import type { NegotiationRow, RoundTerms } from '../db/repositories/negotiations.ts';
import { getContractByNegotiation, listContractIdsByNegotiation } from '../db/repositories/contracts.ts';
import { getUser } from '../db/repositories/users.ts';
import * as lifecycle from '../src/lifecycle/negotiations.ts';
import { presentNegotiation } from '../src/presenters/negotiations.ts';
import { presentContract } from '../src/presenters/contracts.ts';
import { listMilestones } from '../db/repositories/contracts.ts';
import { roleOf } from '../src/lifecycle/parties.ts';
import type { components } from '../src/generated/api.d.ts';

type TermsBody = components['schemas']['RoundTermsFields'];

function termsOf(body: TermsBody): Omit<RoundTerms, 'currency'> & { currency?: string } {
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

/** The negotiation as this caller sees it: rounds, contract id, and the counterpart's contact once shared. */
async function view(db: Executor, callerId: string, negotiation: NegotiationRow) {
  const [rounds, contract] = await Promise.all([
    negotiationsRepo.listRounds(db, [negotiation.id]),
    getContractByNegotiation(db, negotiation.id),
  ]);
  const role = roleOf(negotiation, callerId);
  const counterpartShared = role === 'client' ? negotiation.workerContactSharedAt : negotiation.clientContactSharedAt;
  const counterpartId = role === 'client' ? negotiation.workerUserId : negotiation.clientUserId;
  const counterpartContact = counterpartShared ? (await getUser(db, counterpartId))?.contactDetails ?? null : null;
  return presentNegotiation(negotiation, rounds, { contractId: contract?.id ?? null, contractRoundId: contract?.roundId ?? null, viewer: { role, counterpartContact } });
}

export function negotiationHandlers(ctx: AppContext): Handlers<
  'listNegotiations' | 'createNegotiation' | 'negotiate' | 'getNegotiation' | 'proposeRound' | 'agreeNegotiation' | 'cancelNegotiation' | 'shareContact'
> {
  return {
    async listNegotiations(request) {
      const { userId } = principalOf(request);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await negotiationsRepo.listNegotiationsForParty(ctx.db, userId, {
        status: request.query.status, gigId: request.query.gig_id, limit, beforeId: decodeCursor(request.query.cursor),
      });
      const kept = rows.slice(0, limit);
      const ids = kept.map((n) => n.id);
      const [rounds, contracts] = await Promise.all([negotiationsRepo.listRounds(ctx.db, ids), listContractIdsByNegotiation(ctx.db, ids)]);
      // Lists carry no contact details: fetch one negotiation to see them.
      return page(rows, limit, (n) => presentNegotiation(n, rounds, { contractId: contracts.get(n.id)?.id ?? null, contractRoundId: contracts.get(n.id)?.roundId ?? null }));
    },

    async createNegotiation(request) {
      const { userId } = principalOf(request);
      const negotiation = await lifecycle.startNegotiation(ctx.db, userId, { gigId: request.body.gig_id, workerUserId: request.body.worker_user_id });
      return view(ctx.db, userId, negotiation);
    },

    async negotiate(request) {
      const { userId } = principalOf(request);
      const { gig_id, worker_user_id, ...terms } = request.body;
      const negotiation = await lifecycle.startNegotiation(ctx.db, userId, { gigId: gig_id, workerUserId: worker_user_id, firstRound: termsOf(terms) });
      return view(ctx.db, userId, negotiation);
    },

    async getNegotiation(request) {
      const { userId } = principalOf(request);
      const negotiation = await negotiationsRepo.getNegotiationForParty(ctx.db, userId, request.params.id);
      if (!negotiation) throw notFound('negotiation');
      return view(ctx.db, userId, negotiation);
    },

    async proposeRound(request, reply) {
      const { userId } = principalOf(request);
      const { negotiation } = await lifecycle.proposeRound(ctx.db, userId, request.params.id, termsOf(request.body));
      return reply.code(201).send(await view(ctx.db, userId, negotiation));
    },

    async agreeNegotiation(request) {
      const { userId } = principalOf(request);
      const { negotiation, contract } = await lifecycle.agree(ctx.db, userId, request.params.id, ctx.config.contractApprovalTtlMs);
      const milestones = await listMilestones(ctx.db, [contract.id]);
      return { negotiation: await view(ctx.db, userId, negotiation), contract: presentContract(contract, milestones) };
    },

    async cancelNegotiation(request) {
      const { userId } = principalOf(request);
      const negotiation = await lifecycle.cancelNegotiation(ctx.db, userId, request.params.id);
      return view(ctx.db, userId, negotiation);
    },

    async shareContact(request) {
      const { userId } = principalOf(request);
      const negotiation = await lifecycle.shareContact(ctx.db, userId, request.params.id);
      return view(ctx.db, userId, negotiation);
    },
  };
}
