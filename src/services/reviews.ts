// Contract reviews (src/domain/review.ts): each party of a completed contract reviews the other
// once, double-blind. A review is published when both parties have reviewed (by the second
// review, in its transaction) or when the review period ends (by the review-publication job),
// whichever comes first, with `review.published` to the reviewed user. The second review locks
// the contract row, so of two parties reviewing at once the later one sees the earlier and
// publishes both; publishing is a conditional update, so each review is published (and its event
// written) once, whether by a review or by the job.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow } from '../../db/repositories/contracts.ts';
import * as repo from '../../db/repositories/reviews.ts';
import type { ReviewRow } from '../../db/repositories/reviews.ts';
import { getUser } from '../../db/repositories/users.ts';
import { roleOf } from '../domain/parties.ts';
import { REVIEW_PERIOD_MS, reviewDeadline, reviewPeriodOpen, theirStatus } from '../domain/review.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentContractReviews, presentPublicReview } from '../presenters/reviews.ts';
import { reviewEvent } from './events.ts';

type Db = Pick<Context, 'db'>;

function requireCompleted(contract: ContractRow): Date {
  if (contract.status !== 'completed' || !contract.completedAt) {
    throw new ApiError('INVALID_STATE', `reviews open once the contract is completed; it is ${contract.status}`);
  }
  return contract.completedAt;
}

function view(contract: ContractRow, actor: Actor, reviews: ReviewRow[], now: Date) {
  const completedAt = contract.completedAt!;
  const yours = reviews.find((r) => r.authorUserId === actor.userId);
  const theirs = reviews.find((r) => r.authorUserId !== actor.userId);
  return presentContractReviews({
    contractId: contract.id,
    deadline: reviewDeadline(completedAt),
    yours,
    theirs,
    theirStatus: theirStatus(theirs),
    canReview: !yours && reviewPeriodOpen(completedAt, now),
  });
}

/** Publishes the still-blind ones of these reviews, each with its event; returns how many. */
async function publish(tx: Executor, reviews: ReviewRow[], actor: Actor | null, at: Date): Promise<number> {
  const published = await repo.publishReviews(
    tx,
    reviews.map((r) => r.id),
    at,
  );
  for (const review of published) await reviewEvent(tx, 'review.published', review, actor);
  return published.length;
}

/** A party reviews the other party of a completed contract, once, within the review period. */
export async function submitReview(ctx: Db, actor: Actor, contractId: string, input: { rating: number; text: string }, now = new Date()) {
  return ctx.db.transaction(async (tx) => {
    const contract = await contractsRepo.lockContractForParty(tx, actor.userId, contractId);
    if (!contract) throw notFound('contract');
    const completedAt = requireCompleted(contract);
    if (!reviewPeriodOpen(completedAt, now)) {
      throw new ApiError('INVALID_STATE', `the review period of this contract ended at ${reviewDeadline(completedAt).toISOString()}`);
    }
    const role = roleOf(contract, actor.userId);
    const review = await repo.insertReview(tx, {
      id: newId(),
      contractId: contract.id,
      authorUserId: actor.userId,
      authorRole: role,
      revieweeUserId: role === 'client' ? contract.workerUserId : contract.clientUserId,
      rating: input.rating,
      text: input.text.trim(),
      createdAt: now,
    });
    if (!review) throw conflict('you already reviewed this contract (a review cannot be changed)');
    const reviews = await repo.listContractReviews(tx, contract.id);
    // Both parties have now reviewed: the blind period ends for both reviews.
    if (reviews.length === 2) await publish(tx, reviews, actor, now);
    return view(contract, actor, await repo.listContractReviews(tx, contract.id), now);
  });
}

/** The caller's view of a completed contract's reviews (404 for a non-party, 409 before completion). */
export async function getContractReviews(ctx: Db, actor: Actor, contractId: string, now = new Date()) {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  requireCompleted(contract);
  return view(contract, actor, await repo.listContractReviews(ctx.db, contract.id), now);
}

/** A user's published reviews, newest first: `rows` holds limit + 1 (for paging). */
export async function listProfileReviews(ctx: Db, userId: string, page: { limit: number; beforeId?: string }) {
  if (!(await getUser(ctx.db, userId))) throw notFound('user');
  return { rows: await repo.listPublishedReviews(ctx.db, userId, page), present: presentPublicReview };
}

/**
 * The review-publication job: reviews still blind when their contract's review period has ended
 * are published, each once. Any number of processes may run it at once (SKIP LOCKED batches).
 */
export async function publishDueReviews(ctx: Db, now = new Date(), batch = 100): Promise<number> {
  const completedBy = new Date(now.getTime() - REVIEW_PERIOD_MS);
  let total = 0;
  for (;;) {
    const { locked, published } = await ctx.db.transaction(async (tx) => {
      const due = await repo.lockDueReviews(tx, completedBy, batch);
      return { locked: due.length, published: await publish(tx, due, null, now) };
    });
    total += published;
    if (locked < batch) return total;
  }
}
