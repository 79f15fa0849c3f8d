// Recommendations' SQL: gigs for a worker (profile skills and history) and workers for a gig
// (skills, published reviews, vouches). Formulas mirror src/search/recommendations.ts and scoring.ts.
import { and, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { rowsOf, textArray } from '../../db/sql.ts';
import { FEEDBACK_EFFECT, type FeedbackSignal, type GigRecommendationWeights, type WorkerRecommendationWeights } from './scoring.ts';
import type { CompensationType } from '../domain/gig.ts';
import { RATING_MAX, RATING_MIN } from '../domain/review.ts';

const f8 = (n: number) => sql`${n}::float8`;

/** Share of `tags` (a column) found among `forms`: |tags ∩ forms| / |tags|. */
const shareOf = (column: SQL, forms: string[]) =>
  sql`(select count(*) from unnest(${column}) t where t = any(${textArray(forms)}))::float8 / greatest(cardinality(${column}), 1)`;

const afterCondition = (after: { score: number; id: string } | null) =>
  after ? sql`where (score < ${f8(after.score)} or (score = ${f8(after.score)} and id < ${after.id}::uuid))` : sql``;

/** The tags of gigs the worker applied to, negotiated, or marked relevant: their history, most frequent first. */
export async function historyTags(db: Executor, userId: string, limit = 20): Promise<string[]> {
  const rows = await rowsOf<{ tag: string }>(
    db,
    sql`
    select t.tag from (
      select g.tags from applications a join gigs g on g.id = a.gig_id where a.worker_user_id = ${userId}::uuid
      union all
      select g.tags from negotiations n join gigs g on g.id = n.gig_id where n.worker_user_id = ${userId}::uuid
      union all
      select g.tags from discovery_feedback f join gigs g on g.id = f.gig_id where f.user_id = ${userId}::uuid and f.signal = 'up'
    ) h cross join unnest(h.tags) as t(tag)
    group by t.tag order by count(*) desc, t.tag limit ${limit}::int`,
  );
  return rows.map((r) => r.tag);
}

export interface GigRecommendationPlan {
  userId: string;
  /** Every form of every profile skill. */
  profileForms: string[];
  historyTags: string[];
  weights: GigRecommendationWeights;
  asOf: Date;
  after: { score: number; id: string } | null;
  take: number;
}

export interface RecommendedGigRow {
  id: string;
  client_user_id: string | null;
  title: string;
  description: string;
  rate_cents: number | null;
  compensation_type: CompensationType;
  compensation_min_cents: number | null;
  compensation_max_cents: number | null;
  currency: string;
  tags: string[];
  source: string;
  external_id: string | null;
  url: string | null;
  posted_epoch: number;
  signal: FeedbackSignal | null;
  profile_fit: number;
  history_fit: number | null;
  freshness: number;
  score: number;
}

/**
 * Open gigs sharing a tag with the worker's skills or history, except their own, the ones they
 * applied to or negotiate, and the ones they hid; ranked by how much of each gig's tags the
 * worker covers, their history, and freshness.
 */
export async function recommendGigRows(db: Executor, plan: GigRecommendationPlan): Promise<RecommendedGigRow[]> {
  const w = plan.weights;
  const all = [...new Set([...plan.profileForms, ...plan.historyTags])];
  const history = plan.historyTags.length > 0;
  const fresh = sql`exp(${f8(-Math.LN2 / w.freshnessHalfLifeDays)} * greatest(0::float8, (${f8(plan.asOf.getTime() / 1000)} - date_part('epoch', g.posted_at)) / 86400))`;
  let sum = sql`${f8(w.profile)} * profile_fit`;
  let weight = w.profile;
  if (history) {
    sum = sql`${sum} + ${f8(w.history)} * history_fit`;
    weight += w.history;
  }
  sum = sql`${sum} + ${f8(w.freshness)} * freshness`;
  weight += w.freshness;
  const where: SQL[] = [
    sql`g.status = 'open'`,
    sql`g.tags && ${textArray(all)}`,
    sql`g.client_user_id is distinct from ${plan.userId}::uuid`,
    sql`not exists (select 1 from applications a where a.gig_id = g.id and a.worker_user_id = ${plan.userId}::uuid)`,
    sql`not exists (select 1 from negotiations n where n.gig_id = g.id and n.worker_user_id = ${plan.userId}::uuid)`,
    sql`(fb.signal is null or fb.signal <> 'hide')`,
  ];
  return rowsOf<RecommendedGigRow>(
    db,
    sql`
    with fb as (select gig_id, signal from discovery_feedback where user_id = ${plan.userId}::uuid),
    base as (
      select g.id, g.client_user_id, g.title, g.description, g.rate_cents, g.compensation_type, g.compensation_min_cents,
        g.compensation_max_cents, g.currency, g.tags, g.source, g.external_id, g.url,
        date_part('epoch', g.posted_at) as posted_epoch, fb.signal,
        ${shareOf(sql`g.tags`, plan.profileForms)} as profile_fit,
        ${history ? shareOf(sql`g.tags`, plan.historyTags) : sql`null::float8`} as history_fit,
        ${fresh} as freshness
      from gigs g left join fb on fb.gig_id = g.id
      where ${and(...where)}
      offset 0
    ),
    fused as (select base.*, (${sum}) / ${f8(weight)} as fused from base offset 0),
    scored as (select fused.*, case signal when 'up' then fused + (1 - fused) * ${f8(FEEDBACK_EFFECT.upLift)}
      when 'down' then fused * ${f8(FEEDBACK_EFFECT.downFactor)} else fused end as score from fused offset 0)
    select id, client_user_id, title, description, rate_cents, compensation_type, compensation_min_cents,
      compensation_max_cents, currency, tags, source, external_id, url, posted_epoch, signal, profile_fit, history_fit,
      freshness, score
    from scored ${afterCondition(plan.after)} order by score desc, id desc limit ${plan.take}::int`,
  );
}

export interface WorkerRecommendationPlan {
  gigId: string;
  clientUserId: string;
  /** Each of the gig's tags as its synonym forms. */
  gigTags: string[][];
  weights: WorkerRecommendationWeights;
  after: { score: number; id: string } | null;
  take: number;
}

export interface RecommendedWorkerRow {
  id: string;
  display_name: string;
  skills: string[];
  github_login: string | null;
  skills_fit: number;
  vouches: number;
  /** Published reviews received as a worker (written by clients), and the sum of their ratings. */
  review_count: number;
  rating_sum: number;
  applied: boolean;
  score: number;
}

/**
 * Users whose profile skills cover the gig's tags, except its client; the ratings clients gave
 * them (published reviews only) and vouches add trust. The reviews fit is scoring.ts's reviewsFit,
 * with the neutral prior for a worker without reviews.
 */
export async function recommendWorkerRows(db: Executor, plan: WorkerRecommendationPlan): Promise<RecommendedWorkerRow[]> {
  const w = plan.weights;
  const forms = [...new Set(plan.gigTags.flat())];
  const n = plan.gigTags.length;
  const covered = sql.join(
    plan.gigTags.map((f) => sql`(u.skills && ${textArray(f)})::int`),
    sql` + `,
  );
  const reviewsFit = sql`((rating_sum - review_count * ${f8(RATING_MIN)}) / ${f8(RATING_MAX - RATING_MIN)} + ${f8(w.reviewsPrior * w.reviewsPriorCount)})
    / (review_count + ${f8(w.reviewsPriorCount)})`;
  return rowsOf<RecommendedWorkerRow>(
    db,
    sql`
    with base as (
      select u.id, u.display_name, u.skills, u.github_login,
        (${covered})::float8 / ${f8(n)} as skills_fit,
        (select count(*) from vouches v where v.vouched_user_id = u.id)::int as vouches,
        rv.review_count, rv.rating_sum,
        exists (select 1 from applications a where a.gig_id = ${plan.gigId}::uuid and a.worker_user_id = u.id) as applied
      from users u
      cross join lateral (
        select count(*)::int as review_count, coalesce(sum(r.rating), 0)::int as rating_sum from reviews r
        where r.reviewee_user_id = u.id and r.published_at is not null and r.author_role = 'client'
      ) rv
      where u.skills && ${textArray(forms)} and u.id <> ${plan.clientUserId}::uuid
      offset 0
    ),
    scored as (
      select base.*, (${f8(w.skills)} * skills_fit + ${f8(w.reviews)} * ${reviewsFit}
        + ${f8(w.vouches)} * (vouches::float8 / (vouches + ${f8(w.vouchesHalfPoint)})))
        / ${f8(w.skills + w.reviews + w.vouches)} as score
      from base offset 0
    )
    select * from scored ${afterCondition(plan.after)} order by score desc, id desc limit ${plan.take}::int`,
  );
}
