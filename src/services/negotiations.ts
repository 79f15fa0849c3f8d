// Negotiations (docs/architecture.md §5): the gig's client starts one with a shortlisted worker; rounds
// alternate; the party who did not propose the latest round agrees, which creates the contract
// (or, after a revise, updates it) in pending_owner_approval. Every change writes its event.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { newId } from '../ids.ts';
import * as negotiationsRepo from '../../db/repositories/negotiations.ts';
import type { NegotiationRow, RoundTerms } from '../../db/repositories/negotiations.ts';
import { ApiError, conflict, forbidden, notFound } from '../errors.ts';
import { transition } from '../domain/state-machine.ts';
import { negotiationTransitions, type NegotiationAction, type NegotiationStatus } from '../domain/negotiation.ts';
import { roleOf } from '../domain/parties.ts';
import { chargeForContactShare } from './credits.ts';
import { createOrUpdateContractFromRound } from './contract-terms.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { contractEvent, negotiationEvent } from './events.ts';
import {
  findContractOnGig,
  getContractByNegotiation,
  listContractIdsByNegotiation,
  lockContractByNegotiation,
  updateContract,
} from '../../db/repositories/contracts.ts';
import { getUser } from '../../db/repositories/users.ts';
import { presentNegotiation } from '../presenters/negotiations.ts';
import { contractTransitions, REVISABLE } from '../domain/contract.ts';

/** A round's terms as a party proposes them; the currency defaults to the latest round's, else the gig's. */
export type ProposedTerms = Omit<RoundTerms, 'currency'> & { currency?: string };

export interface StartInput {
  gigId: string;
  workerUserId: string;
  /** The first round, for POST /api/negotiate. */
  firstRound?: ProposedTerms;
}

function move(negotiation: NegotiationRow, action: NegotiationAction) {
  return transition(negotiationTransitions, 'negotiation', negotiation.status, action);
}

export async function startNegotiation(ctx: Pick<Context, 'db'>, actor: Actor, input: StartInput): Promise<NegotiationRow> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const gig = await negotiationsRepo.getGigHeader(tx, input.gigId);
      // A gig the caller does not own is not theirs to negotiate on; draft gigs of others stay hidden.
      if (!gig || (gig.clientUserId !== actor.userId && gig.status === 'draft')) throw notFound('gig');
      if (gig.clientUserId !== actor.userId) throw forbidden("only the gig's client can start a negotiation");
      if (input.workerUserId === actor.userId) throw forbidden('you cannot negotiate with yourself');
      if (gig.status !== 'open' && gig.status !== 'paused') {
        throw new ApiError('INVALID_STATE', `cannot negotiate on a gig that is ${gig.status}`);
      }
      const application = await negotiationsRepo.applicationStatus(tx, gig.id, input.workerUserId);
      if (application !== 'shortlisted') {
        throw new ApiError(
          'INVALID_STATE',
          `the worker must be shortlisted for this gig (their application is ${application ?? 'absent'})`,
        );
      }
      // A contract not yet binding can still be revised, which re-opens its negotiation: a second
      // negotiation beside it would then be a second open one (and two contracts for one deal).
      const unsettled = await findContractOnGig(tx, gig.id, input.workerUserId, REVISABLE);
      if (unsettled) {
        throw conflict(
          `the contract ${unsettled.id} with this worker on this gig is ${unsettled.status}: revise or cancel it instead of starting over`,
        );
      }
      const negotiation = await negotiationsRepo.insertNegotiation(tx, {
        id: newId(),
        gigId: gig.id,
        clientUserId: actor.userId,
        workerUserId: input.workerUserId,
      });
      await negotiationEvent(tx, 'negotiation.created', negotiation, actor);
      if (input.firstRound) {
        const terms = { ...input.firstRound, currency: input.firstRound.currency ?? gig.currency };
        await negotiationsRepo.insertRound(tx, newId(), negotiation.id, 1, { userId: actor.userId, role: 'client' }, terms);
        await negotiationEvent(tx, 'negotiation.round_created', negotiation, actor);
      }
      return negotiation;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'negotiations_open_key')) {
      throw conflict('an open negotiation between this client and worker on this gig already exists');
    }
    throw err;
  }
}

export async function proposeRound(ctx: Pick<Context, 'db'>, actor: Actor, negotiationId: string, terms: ProposedTerms) {
  return ctx.db.transaction(async (tx) => {
    const negotiation = await negotiationsRepo.lockNegotiationForParty(tx, actor.userId, negotiationId);
    if (!negotiation) throw notFound('negotiation');
    move(negotiation, 'propose');
    const role = roleOf(negotiation, actor.userId);
    const latest = await negotiationsRepo.latestRound(tx, negotiation.id);
    // After a revise the latest round is the one the contract holds: settled, so either party may
    // open the new rounds. Otherwise rounds alternate.
    const settled = latest && (await getContractByNegotiation(tx, negotiation.id))?.roundId === latest.id;
    if (latest && latest.proposerRole === role && !settled) {
      throw new ApiError('INVALID_STATE', `round ${latest.number} is yours; the ${role === 'client' ? 'worker' : 'client'} answers next`);
    }
    const gig = await negotiationsRepo.getGigHeader(tx, negotiation.gigId);
    const number = (latest?.number ?? 0) + 1;
    const round = await negotiationsRepo.insertRound(
      tx,
      newId(),
      negotiation.id,
      number,
      { userId: actor.userId, role },
      { ...terms, currency: terms.currency ?? latest?.currency ?? gig!.currency },
    );
    const updated = await negotiationsRepo.setNegotiationStatus(tx, negotiation.id, 'open');
    await negotiationEvent(tx, 'negotiation.round_created', updated, actor);
    return { negotiation: updated, round };
  });
}

export async function agree(ctx: Pick<Context, 'db' | 'config'>, actor: Actor, negotiationId: string) {
  return ctx.db.transaction(async (tx) => {
    const negotiation = await negotiationsRepo.lockNegotiationForParty(tx, actor.userId, negotiationId);
    if (!negotiation) throw notFound('negotiation');
    const step = move(negotiation, 'agree');
    const role = roleOf(negotiation, actor.userId);
    const latest = await negotiationsRepo.latestRound(tx, negotiation.id);
    if (!latest) throw new ApiError('INVALID_STATE', 'no terms have been proposed yet: propose a round first');
    const contract = await getContractByNegotiation(tx, negotiation.id);
    if (contract?.roundId === latest.id) {
      throw new ApiError('INVALID_STATE', `round ${latest.number} was already agreed and then revised: propose new terms first`);
    }
    if (latest.proposerRole === role) {
      throw new ApiError(
        'INVALID_STATE',
        `you proposed round ${latest.number}; the ${role === 'client' ? 'worker' : 'client'} must agree to it`,
      );
    }
    if (latest.milestones.length === 0) {
      throw new ApiError('INVALID_STATE', `round ${latest.number} has no milestones; propose a round with at least one milestone`);
    }
    const updated = await negotiationsRepo.setNegotiationStatus(tx, negotiation.id, step.to, { agreedAt: new Date() });
    const made = await createOrUpdateContractFromRound(tx, updated, latest, actor, ctx.config.contractApprovalTtlMs);
    await negotiationEvent(tx, step.event, updated, actor);
    return { negotiation: updated, contract: made };
  });
}

export async function cancelNegotiation(ctx: Pick<Context, 'db'>, actor: Actor, negotiationId: string) {
  return ctx.db.transaction(async (tx) => {
    const negotiation = await negotiationsRepo.lockNegotiationForParty(tx, actor.userId, negotiationId);
    if (!negotiation) throw notFound('negotiation');
    const step = move(negotiation, 'cancel');
    const updated = await negotiationsRepo.setNegotiationStatus(tx, negotiation.id, step.to, { cancelledAt: new Date() });
    await negotiationEvent(tx, step.event, updated, actor);
    // A negotiation re-opened by a revise has a contract waiting on it: it ends with it.
    const contract = await lockContractByNegotiation(tx, negotiation.id);
    if (contract?.status === 'negotiation') {
      const ended = transition(contractTransitions, 'contract', contract.status, 'cancel');
      await contractEvent(tx, ended.event, await updateContract(tx, contract.id, { status: ended.to, cancelledAt: new Date() }), actor);
    }
    return updated;
  });
}

/** The caller shares their contact details with the other party of this negotiation. */
export async function shareContact(ctx: Pick<Context, 'db'>, actor: Actor, negotiationId: string) {
  return ctx.db.transaction(async (tx) => {
    const negotiation = await negotiationsRepo.lockNegotiationForParty(tx, actor.userId, negotiationId);
    if (!negotiation) throw notFound('negotiation');
    if (negotiation.status === 'cancelled')
      throw new ApiError('INVALID_STATE', 'cannot share contact details on a negotiation that is cancelled');
    const role = roleOf(negotiation, actor.userId);
    const already = role === 'client' ? negotiation.clientContactSharedAt : negotiation.workerContactSharedAt;
    if (already) return negotiation; // sharing twice changes nothing and costs nothing
    await chargeForContactShare(tx, { userId: actor.userId, negotiationId: negotiation.id });
    const updated = await negotiationsRepo.markContactShared(tx, negotiation.id, role);
    await negotiationEvent(tx, 'negotiation.contact_shared', updated, actor);
    return updated;
  });
}

/** The negotiation as this caller sees it: rounds, contract id, and the counterpart's contact once shared. */
export async function negotiationView(ctx: Pick<Context, 'db'>, actor: Actor, negotiation: NegotiationRow) {
  const [rounds, contract] = await Promise.all([
    negotiationsRepo.listRounds(ctx.db, [negotiation.id]),
    getContractByNegotiation(ctx.db, negotiation.id),
  ]);
  const role = roleOf(negotiation, actor.userId);
  const counterpartShared = role === 'client' ? negotiation.workerContactSharedAt : negotiation.clientContactSharedAt;
  const counterpartId = role === 'client' ? negotiation.workerUserId : negotiation.clientUserId;
  const counterpartContact = counterpartShared ? ((await getUser(ctx.db, counterpartId))?.contactDetails ?? null) : null;
  return presentNegotiation(negotiation, rounds, {
    contractId: contract?.id ?? null,
    contractRoundId: contract?.roundId ?? null,
    viewer: { role, counterpartContact },
  });
}

/** The negotiation if the caller is one of its parties, else NOT_FOUND. */
export async function getNegotiation(ctx: Pick<Context, 'db'>, actor: Actor, negotiationId: string): Promise<NegotiationRow> {
  const negotiation = await negotiationsRepo.getNegotiationForParty(ctx.db, actor.userId, negotiationId);
  if (!negotiation) throw notFound('negotiation');
  return negotiation;
}

/**
 * The caller's negotiations, newest first: `rows` holds limit + 1 (for paging), `present` shows
 * one of the first `limit` as lists do (without contact details: fetch one negotiation to see them).
 */
export async function listNegotiations(
  ctx: Pick<Context, 'db'>,
  actor: Actor,
  filter: { status?: NegotiationStatus; gigId?: string; limit: number; beforeId?: string },
) {
  const rows = await negotiationsRepo.listNegotiationsForParty(ctx.db, actor.userId, filter);
  const ids = rows.slice(0, filter.limit).map((n) => n.id);
  const [rounds, contracts] = await Promise.all([negotiationsRepo.listRounds(ctx.db, ids), listContractIdsByNegotiation(ctx.db, ids)]);
  const present = (n: NegotiationRow) =>
    presentNegotiation(n, rounds, { contractId: contracts.get(n.id)?.id ?? null, contractRoundId: contracts.get(n.id)?.roundId ?? null });
  return { rows, present };
}
