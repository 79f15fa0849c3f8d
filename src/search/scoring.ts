// Scores: every component in [0,1] and how they fuse (docs/architecture.md §8). Pure functions; the search SQL
// (ranking-sql.ts beside this file) computes the same formulas so that Postgres can order and page by
// them, and a test checks that the two agree. The weights were chosen by `npm run eval:search`
// (docs/search.md).

export interface RankingWeights {
  /** Fusion: each component's weight; a component that does not apply drops out. */
  lexical: number;
  structured: number;
  semantic: number;
  /** Inside structured: requested skills covered, compensation fit, freshness. */
  skills: number;
  compensation: number;
  freshness: number;
  /** ts_rank r becomes r / (r + lexicalSaturation). */
  lexicalSaturation: number;
  /** ts_rank's normalization flags (0: none, 1: divide by 1 + log(document length)). */
  lexicalNormalization: 0 | 1;
  /** Freshness halves every this many days. */
  freshnessHalfLifeDays: number;
  /** Words in more than this share of gigs do not search (query.ts, withoutCommonWords); 1 keeps all. */
  commonShare: number;
}

export const DEFAULT_WEIGHTS: RankingWeights = {
  lexical: 1,
  structured: 0.5,
  semantic: 0.5,
  skills: 8,
  compensation: 1,
  freshness: 1,
  lexicalSaturation: 0.05,
  lexicalNormalization: 1,
  freshnessHalfLifeDays: 30,
  commonShare: 0.1,
};

/** ts_rank's weights for the fields, in Postgres' order {D, C, B, A}: scope, description, tags, title. */
export const FIELD_WEIGHTS = [0.1, 0.2, 0.4, 1.0] as const;

/** How feedback moves a score: `up` closes part of the gap to 1, `down` halves it. */
export const FEEDBACK_EFFECT = { upLift: 0.3, downFactor: 0.5 } as const;

export type { FeedbackSignal } from '../domain/feedback.ts';
import type { FeedbackSignal } from '../domain/feedback.ts';
import { RATING_MAX, RATING_MIN } from '../domain/review.ts';

export function lexicalScore(rank: number, w: RankingWeights): number {
  return rank > 0 ? rank / (rank + w.lexicalSaturation) : 0;
}

export function freshness(ageDays: number, w: RankingWeights): number {
  return Math.exp((-Math.LN2 / w.freshnessHalfLifeDays) * Math.max(0, ageDays));
}

/** The stated pay as a range: hourly rate or [min, max]; null when nothing is stated. */
export function payRange(g: {
  rateCents: number | null;
  compensationMinCents: number | null;
  compensationMaxCents: number | null;
}): { low: number; high: number } | null {
  const low = g.compensationMinCents ?? g.rateCents ?? g.compensationMaxCents;
  const high = g.compensationMaxCents ?? g.rateCents ?? g.compensationMinCents;
  return low === null || high === null ? null : { low, high };
}

/**
 * How well the stated pay meets a minimum (the filter already dropped gigs whose top is below
 * it): 1 when all of the range is at or above it; 0.5 to 1 by how much of the range is.
 */
export function compensationFit(range: { low: number; high: number }, minimum: number): number {
  if (range.low >= minimum) return 1;
  if (range.high < minimum) return 0;
  return 0.5 + (0.5 * (range.high - minimum)) / (range.high - range.low);
}

export interface StructuredParts {
  /** Share of the requested skills the gig's tags cover; null when none were requested. */
  skills: number | null;
  /** Compensation fit; null without min_compensation_cents. */
  compensation: number | null;
  freshness: number;
}

export function structuredScore(p: StructuredParts, w: RankingWeights): number {
  let sum = w.freshness * p.freshness;
  let weight = w.freshness;
  if (p.skills !== null) {
    sum += w.skills * p.skills;
    weight += w.skills;
  }
  if (p.compensation !== null) {
    sum += w.compensation * p.compensation;
    weight += w.compensation;
  }
  return weight > 0 ? sum / weight : 0;
}

export interface Components {
  lexical: number | null;
  structured: number;
  semantic: number | null;
}

/** Weighted mean of the components that apply. */
export function fuse(c: Components, w: RankingWeights): number {
  let sum = w.structured * c.structured;
  let weight = w.structured;
  if (c.lexical !== null) {
    sum += w.lexical * c.lexical;
    weight += w.lexical;
  }
  if (c.semantic !== null) {
    sum += w.semantic * c.semantic;
    weight += w.semantic;
  }
  return weight > 0 ? sum / weight : 0;
}

export function applyFeedback(score: number, signal: FeedbackSignal | null): number {
  if (signal === 'up') return score + (1 - score) * FEEDBACK_EFFECT.upLift;
  if (signal === 'down') return score * FEEDBACK_EFFECT.downFactor;
  return score;
}

/**
 * Reciprocal rank fusion over several rankings of the same items (best first), scaled to [0,1]:
 * the evaluation compares it with the weighted sum.
 */
export function reciprocalRankFusion(rankings: string[][], k = 60): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  const best = rankings.length / (k + 1);
  for (const [id, s] of scores) scores.set(id, s / best);
  return scores;
}

/** How a gig recommendation weighs the worker's profile, their history and freshness. */
export interface GigRecommendationWeights {
  profile: number;
  history: number;
  freshness: number;
  freshnessHalfLifeDays: number;
}
/** How a worker recommendation weighs skills covered, published reviews and vouches. */
export interface WorkerRecommendationWeights {
  skills: number;
  reviews: number;
  vouches: number;
  vouchesHalfPoint: number;
  /** Reviews' fit is their average rating fit averaged with this many neutral ratings (`reviewsPrior`). */
  reviewsPriorCount: number;
  /** The fit of a neutral rating (3 stars of 5), and of a worker without reviews. */
  reviewsPrior: number;
}

/**
 * The reviews component: the worker's rating fits ((rating - 1) / 4) averaged with
 * `reviewsPriorCount` neutral ones, so that one 5-star review moves it less than twenty; null
 * without reviews (the score then counts the neutral prior).
 */
export function reviewsFit(count: number, ratingSum: number, w: Pick<WorkerRecommendationWeights, 'reviewsPriorCount' | 'reviewsPrior'>) {
  if (count === 0) return null;
  return (
    ((ratingSum - count * RATING_MIN) / (RATING_MAX - RATING_MIN) + w.reviewsPrior * w.reviewsPriorCount) / (count + w.reviewsPriorCount)
  );
}
