// The advisory recommendation of a dispute: the facts (the contract's terms, its negotiation rounds
// and milestones, the dispute and its evidence; src/domain/recommendation.ts decides what of them
// leaves, and redacts it) go to the configured chat-completions endpoint, whose answer is checked
// strictly, then stored with the model and the time, replacing the previous one. Advice only: it
// changes nothing else. Without LLM_URL, 503; a failing or malformed answer 502, a slow one 504;
// neither changes anything.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow } from '../../db/repositories/contracts.ts';
import * as repo from '../../db/repositories/disputes.ts';
import type { DisputeRow } from '../../db/repositories/disputes.ts';
import { listRounds } from '../../db/repositories/negotiations.ts';
import { checkAnswer, RECOMMENDATION_SCHEMA, recommendationMessages, type RecommendationFacts } from '../domain/recommendation.ts';
import { ApiError } from '../errors.ts';
import { askForJson, LlmError } from '../llm/chat-completions.ts';
import { presentDispute } from '../presenters/disputes.ts';
import { partyDispute } from './disputes.ts';
import { disputeEvent } from './events.ts';
import { idAt } from '../ids.ts';
import { callNow, type Outside } from '../outside.ts';
import { listApprovalsOfContract } from '../../db/repositories/approvals.ts';
import { contractTermsHash } from './approvals.ts';

/** Everything the model is told about this dispute (before redaction), from the database. */
async function factsOf(ctx: Pick<Context, 'db'>, contract: ContractRow, dispute: DisputeRow): Promise<RecommendationFacts> {
  const [gig, rounds, milestones, evidence, approvals] = await Promise.all([
    repo.gigText(ctx.db, contract.gigId),
    listRounds(ctx.db, [contract.negotiationId]),
    contractsRepo.listMilestones(ctx.db, [contract.id]),
    repo.listEvidence(ctx.db, dispute.id),
    listApprovalsOfContract(ctx.db, contract.id),
  ]);
  return {
    gig: { title: gig?.title ?? '', description: gig?.description ?? '' },
    contract: {
      currency: contract.currency,
      rate_cents: contract.rateCents,
      hours_per_week: contract.hoursPerWeek,
      start_date: contract.startDate,
      payout_delay_days: contract.payoutDelayDays,
      terms_hash: contractTermsHash(contract, milestones),
    },
    approvals: approvals.map((a) => ({
      party_role: a.partyRole,
      revision_count: a.revisionCount,
      terms_hash: a.termsHash,
      method: a.method,
      approved_at: a.approvedAt.toISOString(),
    })),
    rounds: rounds.map((r) => ({
      number: r.number,
      proposed_by: r.proposerRole,
      rate_cents: r.rateCents,
      hours_per_week: r.hoursPerWeek,
      start_date: r.startDate,
      payout_delay_days: r.payoutDelayDays,
      milestones: r.milestones.map((m) => ({ title: m.title, amount_cents: m.amount_cents, due_date: m.due_date })),
      notes: r.notes,
    })),
    milestones: milestones.map((m) => ({
      id: m.id,
      title: m.title,
      amount_cents: m.amountCents,
      due_date: m.dueDate,
      status: m.status,
      disputed: dispute.milestoneIds.includes(m.id),
    })),
    dispute: { opened_by: dispute.openerRole, reason: dispute.reason, description: dispute.description, response: dispute.response },
    evidence: evidence.map((e) => ({
      id: e.id,
      from: e.authorRole,
      kind: e.kind,
      text: e.text,
      file: e.file ? { content_type: e.file.contentType, size_bytes: e.file.sizeBytes } : null,
    })),
  };
}

/** How long a recommendation stands while its facts do: asking again meanwhile answers it, without asking the model. */
export const RECOMMENDATION_STANDS_MS = 10 * 60_000;

/**
 * The model's advice, checked: what the recommendation's transaction stores; or `standing`: the
 * dispute's recommendation is recent and no evidence came after it, so it is answered again.
 */
export type Advice = { answer: Extract<ReturnType<typeof checkAnswer>, { answer: unknown }>['answer']; model: string } | { standing: true };

/** A recommendation made less than RECOMMENDATION_STANDS_MS ago, with no evidence added since. */
function stands(dispute: DisputeRow, evidenceIds: string[], now = new Date()): boolean {
  const made = dispute.recommendation ? new Date(dispute.recommendation.created_at) : undefined;
  if (!made || now.getTime() - made.getTime() >= RECOMMENDATION_STANDS_MS) return false;
  const after = idAt(made);
  return evidenceIds.every((id) => id < after);
}

/**
 * The recommendation's outside step: the model is asked, and its answer checked, with no
 * transaction open. Only a valid answer comes back (and is recorded for a retry of the request).
 */
export async function askForAdvice(
  ctx: Pick<Context, 'db' | 'config'>,
  actor: Actor,
  disputeId: string,
  outside: Outside = callNow,
): Promise<Advice> {
  const { dispute, contract } = await partyDispute(ctx, actor, disputeId);
  const settings = ctx.config.llm;
  if (!settings) {
    throw new ApiError(
      'RECOMMENDATION_UNAVAILABLE',
      'recommendations are not available on this server: no language model is configured (LLM_URL); none is made up',
    );
  }
  if (dispute.status !== 'responded') {
    throw new ApiError('INVALID_STATE', `a recommendation is given once the other party has responded; the dispute is ${dispute.status}`);
  }
  const facts = await factsOf(ctx, contract, dispute);
  if (
    stands(
      dispute,
      facts.evidence.map((e) => e.id),
    )
  )
    return { standing: true };
  return outside('advice', async () => {
    let answer: Awaited<ReturnType<typeof askForJson>>;
    try {
      answer = await askForJson(settings, {
        messages: recommendationMessages(facts),
        schemaName: 'dispute_recommendation',
        schema: RECOMMENDATION_SCHEMA,
      });
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      if (err.kind === 'timeout') throw new ApiError('RECOMMENDATION_TIMEOUT', `${err.message}; nothing was changed`);
      throw new ApiError('RECOMMENDATION_FAILED', `${err.message}; nothing was changed`);
    }
    const checked = checkAnswer(
      answer.value,
      facts.evidence.map((e) => e.id),
    );
    if ('problem' in checked) {
      throw new ApiError(
        'RECOMMENDATION_FAILED',
        `the model answered something that is not a valid recommendation (${checked.problem}); nothing was changed`,
      );
    }
    return { answer: checked.answer, model: answer.model };
  });
}

/** Stores the advice as the dispute's recommendation, replacing the previous one (a standing one is answered as it is). */
export async function recommend(ctx: Pick<Context, 'db' | 'config'>, actor: Actor, disputeId: string, advice: Advice) {
  const { contract } = await partyDispute(ctx, actor, disputeId);
  return ctx.db.transaction(async (tx) => {
    const locked = (await repo.lockDispute(tx, disputeId))!;
    // Resolved or withdrawn while the model thought: the advice comes too late to be kept.
    if (locked.status !== 'responded')
      throw new ApiError('INVALID_STATE', `the dispute was ${locked.status} meanwhile; nothing was changed`);
    if ('standing' in advice) return presentDispute(locked, await repo.countEvidence(tx, locked.id));
    const recommendation = { ...advice.answer, model: advice.model, created_at: new Date().toISOString() };
    const updated = await repo.updateDispute(tx, locked.id, { recommendation });
    const view = presentDispute(updated, await repo.countEvidence(tx, locked.id));
    await disputeEvent(tx, 'dispute.recommended', contract, view, actor);
    return view;
  });
}
