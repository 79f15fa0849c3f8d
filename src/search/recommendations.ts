// Recommendations (docs/architecture.md §8): gigs for the calling worker, from their profile skills and history
// (gigs they applied to, negotiated or marked relevant); workers for a client's gig, from skills,
// the reviews clients published of them, and vouches. There is no labelled set for these, so the
// weights are a judgment: skills first, then history or trust, freshness last.
import type { Db } from '../../db/client.ts';
import { getUser } from '../../db/repositories/users.ts';
import {
  historyTags,
  recommendGigRows,
  recommendWorkerRows,
  type RecommendedGigRow,
  type RecommendedWorkerRow,
} from './recommendations-sql.ts';
import { reviewsFit, type GigRecommendationWeights, type WorkerRecommendationWeights } from './scoring.ts';
import { decodeRankedCursor, fingerprint, rankedPage } from './cursor.ts';
import { ageReason, feedbackReason } from './reasons.ts';
import { skillForms } from './skills.ts';
import { snippet } from './service.ts';
import { isoTimestampOfMs } from '../presenters/timestamps.ts';

export const GIG_RECOMMENDATION_WEIGHTS: GigRecommendationWeights = {
  profile: 0.6,
  history: 0.25,
  freshness: 0.15,
  freshnessHalfLifeDays: 30,
};
/**
 * vouches n count as n / (n + vouchesHalfPoint): 3 vouches are half of what vouches can add.
 * Reviews (what clients who paid for the work said) weigh more than vouches (which cost nothing).
 */
export const WORKER_RECOMMENDATION_WEIGHTS: WorkerRecommendationWeights = {
  skills: 0.6,
  reviews: 0.25,
  vouches: 0.15,
  vouchesHalfPoint: 3,
  reviewsPriorCount: 3,
  reviewsPrior: 0.5,
};

/**
 * The reviews component of a worker's score: the published ratings clients gave them, as
 * scoring.ts's reviewsFit; null without reviews (the score counts the neutral prior then).
 */
export function reviewsComponent(r: { review_count: number; rating_sum: number }): number | null {
  return reviewsFit(r.review_count, r.rating_sum, WORKER_RECOMMENDATION_WEIGHTS);
}

/** `rated 4.8 from 12 reviews`, or null without reviews. */
export function reviewsReason(r: { review_count: number; rating_sum: number }): string | null {
  if (!r.review_count) return null;
  return `rated ${(r.rating_sum / r.review_count).toFixed(1)} from ${r.review_count} ${r.review_count === 1 ? 'review' : 'reviews'}`;
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

function covered(tags: readonly string[], skills: Map<string, string[]>): string[] {
  const set = new Set(tags);
  return [...skills].filter(([, forms]) => forms.some((f) => set.has(f))).map(([s]) => s);
}

export async function recommendGigs(db: Db, userId: string, req: { limit: number; cursor?: string }, now = new Date()) {
  const user = await getUser(db, userId);
  const skills = new Map((user?.skills ?? []).map((s) => [s, skillForms(s)]));
  const history = await historyTags(db, userId);
  const print = fingerprint({ kind: 'gigs-for-worker', userId });
  const after = decodeRankedCursor(req.cursor, print);
  const asOf = after ? new Date(after.asOf) : now;
  const notices: string[] = [];
  if (!skills.size && !history.length) {
    notices.push('add skills to your profile (PATCH /api/profile/me) or apply to gigs to get recommendations');
    return { data: [], next_cursor: null, notices };
  }
  if (!skills.size) notices.push('recommended from your history only: add skills to your profile for better matches');
  const rows = await recommendGigRows(db, {
    userId,
    profileForms: [...new Set([...skills.values()].flat())],
    historyTags: history,
    weights: GIG_RECOMMENDATION_WEIGHTS,
    asOf,
    after: after ?? null,
    take: req.limit + 1,
  });
  const historySet = new Map(history.map((t) => [t, [t]]));
  const present = (r: RecommendedGigRow) => {
    const reasons: string[] = [];
    const mine = covered(r.tags, skills);
    if (mine.length) reasons.push(`matches ${mine.length} of your skills: ${mine.join(', ')}`);
    const past = covered(r.tags, historySet).filter((t) => !mine.some((m) => skills.get(m)!.includes(t)));
    if (past.length) reasons.push(`like gigs you worked with before: ${past.join(', ')}`);
    reasons.push(ageReason((asOf.getTime() / 1000 - r.posted_epoch) / 86400));
    const fb = feedbackReason(r.signal);
    if (fb) reasons.push(fb);
    return {
      id: r.id,
      title: r.title,
      snippet: snippet(r.description),
      compensation_type: r.compensation_type,
      rate_cents: r.rate_cents,
      compensation_min_cents: r.compensation_min_cents,
      compensation_max_cents: r.compensation_max_cents,
      currency: r.currency,
      tags: r.tags,
      source: r.source,
      url: r.url,
      external_id: r.external_id,
      client_user_id: r.client_user_id,
      status: 'open' as const,
      posted_at: isoTimestampOfMs(Math.round(r.posted_epoch * 1000)),
      score: round(r.score)!,
      score_components: { skills: round(r.profile_fit)!, history: round(r.history_fit), freshness: round(r.freshness)! },
      feedback: r.signal,
      match_reasons: reasons,
    };
  };
  const { kept, nextCursor } = rankedPage(rows, req.limit, print, asOf.getTime());
  return { data: kept.map(present), next_cursor: nextCursor, notices };
}

/** Workers for the gig (the caller has been checked to be its client). */
export async function recommendWorkers(
  db: Db,
  gig: { id: string; clientUserId: string; tags: string[] },
  req: { limit: number; cursor?: string },
) {
  const print = fingerprint({ kind: 'workers-for-gig', gig: gig.id });
  const after = decodeRankedCursor(req.cursor, print);
  const notices: string[] = [];
  if (!gig.tags.length) {
    notices.push('this gig has no tags: add the skills it needs (PATCH /api/gigs/{id}) to get recommendations');
    return { data: [], next_cursor: null, notices };
  }
  const gigSkills = new Map(gig.tags.map((t) => [t, skillForms(t)]));
  const rows = await recommendWorkerRows(db, {
    gigId: gig.id,
    clientUserId: gig.clientUserId,
    gigTags: [...gigSkills.values()],
    weights: WORKER_RECOMMENDATION_WEIGHTS,
    after: after ?? null,
    take: req.limit + 1,
  });
  const present = (r: RecommendedWorkerRow) => {
    const has = covered(r.skills, gigSkills);
    const reasons = [`has ${has.length} of the gig's ${gig.tags.length} skills: ${has.join(', ')}`];
    const rated = reviewsReason(r);
    if (rated) reasons.push(rated);
    if (r.vouches) reasons.push(`vouched for by ${r.vouches} ${r.vouches === 1 ? 'person' : 'people'}`);
    if (r.applied) reasons.push('already applied to this gig');
    return {
      user_id: r.id,
      display_name: r.display_name,
      skills: r.skills,
      github_login: r.github_login,
      vouch_count: r.vouches,
      review_count: r.review_count,
      average_rating: r.review_count ? Math.round((r.rating_sum / r.review_count) * 100) / 100 : null,
      applied: r.applied,
      score: round(r.score)!,
      score_components: {
        skills: round(r.skills_fit)!,
        vouches: round(r.vouches / (r.vouches + WORKER_RECOMMENDATION_WEIGHTS.vouchesHalfPoint))!,
        reviews: round(reviewsComponent(r)),
      },
      match_reasons: reasons,
    };
  };
  const { kept, nextCursor } = rankedPage(rows, req.limit, print, 0);
  return { data: kept.map(present), next_cursor: nextCursor, notices };
}
