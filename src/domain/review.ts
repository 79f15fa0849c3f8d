// Contract reviews (docs/architecture.md §5): once a contract is completed, each party may review the
// other once. Double-blind, as Airbnb and Sharetribe do it: a review stays hidden from the other
// party until both have reviewed, or until the review period ends, whichever comes first; after
// that no review can be written (or the second author could answer what they just read).
import type { PartyRole } from './negotiation.ts';

export { RATING_MAX, RATING_MIN, REVIEW_TEXT_MAX } from '../../db/schema/column-values.ts';

export const REVIEW_PERIOD_DAYS = 14;
export const REVIEW_PERIOD_MS = REVIEW_PERIOD_DAYS * 86_400_000;

/** When the contract's review period ends: reviews not yet published are published then. */
export const reviewDeadline = (completedAt: Date): Date => new Date(completedAt.getTime() + REVIEW_PERIOD_MS);

/** The period is open until its deadline (exclusive). */
export const reviewPeriodOpen = (completedAt: Date, now: Date): boolean => now.getTime() < reviewDeadline(completedAt).getTime();

/** What the other party's review is, as the caller may know it: its existence, and its content once published. */
export type TheirReviewStatus = 'not_submitted' | 'submitted' | 'published';

export function theirStatus(review: { publishedAt: Date | null } | undefined): TheirReviewStatus {
  if (!review) return 'not_submitted';
  return review.publishedAt ? 'published' : 'submitted';
}

export type ReviewAuthorRole = PartyRole;
