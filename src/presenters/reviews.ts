// Reviews as the API shows them: on a contract to its parties (ContractReview, ContractReviews) and
// published on a profile (PublicReview).
import type { PublishedReviewRow, ReviewRow } from '../../db/repositories/reviews.ts';
import type { TheirReviewStatus } from '../domain/review.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

export function presentContractReview(r: ReviewRow) {
  return {
    id: r.id,
    contract_id: r.contractId,
    author_user_id: r.authorUserId,
    author_role: r.authorRole,
    reviewee_user_id: r.revieweeUserId,
    rating: r.rating,
    text: r.text,
    created_at: isoTimestamp(r.createdAt),
    published_at: isoTimestampOrNull(r.publishedAt),
  };
}

export type ContractReviewView = ReturnType<typeof presentContractReview>;

/** The caller's side of a contract's reviews: their own (blind or not), and the other's once published. */
export function presentContractReviews(input: {
  contractId: string;
  deadline: Date;
  yours: ReviewRow | undefined;
  theirs: ReviewRow | undefined;
  theirStatus: TheirReviewStatus;
  canReview: boolean;
}) {
  return {
    contract_id: input.contractId,
    review_deadline: isoTimestamp(input.deadline),
    can_review: input.canReview,
    yours: input.yours ? presentContractReview(input.yours) : null,
    theirs: {
      status: input.theirStatus,
      review: input.theirs?.publishedAt ? presentContractReview(input.theirs) : null,
    },
  };
}

export function presentPublicReview(r: PublishedReviewRow) {
  return {
    id: r.id,
    rating: r.rating,
    text: r.text,
    author_user_id: r.authorUserId,
    author_display_name: r.authorDisplayName,
    author_role: r.authorRole,
    gig_id: r.gigId,
    gig_title: r.gigTitle,
    created_at: isoTimestamp(r.createdAt),
    published_at: isoTimestamp(r.publishedAt),
  };
}
