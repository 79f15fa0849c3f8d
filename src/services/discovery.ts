// Discovery around the ranking (which lives in src/search): worker recommendations for the
// caller's own gig, and feedback that changes the caller's later results.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { notFound } from '../errors.ts';
import { assertClientOf } from '../domain/gig.ts';
import { findVisibleGig } from '../../db/repositories/gigs.ts';
import { deleteFeedback, upsertFeedback } from '../../db/repositories/search.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import { recommendWorkers } from '../search/recommendations.ts';
import type { FeedbackSignal } from '../search/scoring.ts';
import { isoTimestamp } from '../presenters/timestamps.ts';

type Db = Pick<Context, 'db'>;

/** Workers for the caller's own gig. */
export async function recommendWorkersForGig(ctx: Db, actor: Actor, gigId: string, page: { limit: number; cursor?: string }) {
  const gig = await findVisibleGig(ctx.db, actor.userId, gigId);
  if (!gig) throw notFound('gig');
  assertClientOf(gig, actor.userId, 'get worker recommendations for it');
  return recommendWorkers(ctx.db, { id: gig.id, clientUserId: gig.clientUserId!, tags: gig.tags }, page);
}

/** Records (or, with `clear`, forgets) the caller's signal on a gig they can see. */
export async function sendFeedback(
  ctx: Db,
  actor: Actor,
  input: { gigId: string; signal: FeedbackSignal | 'clear'; context: 'search' | 'recommendation' | null },
) {
  const gig = await findVisibleGig(ctx.db, actor.userId, input.gigId);
  if (!gig) throw notFound('gig');
  if (input.signal === 'clear') {
    await deleteFeedback(ctx.db, actor.userId, input.gigId);
    return { gig_id: input.gigId, signal: null, context: null, updated_at: new Date().toISOString() };
  }
  const row = await upsertFeedback(ctx.db, actor.userId, input.gigId, input.signal, input.context).catch((err: unknown) => {
    throw isForeignKeyViolation(err, 'discovery_feedback_gig_id_gigs_id_fk') ? notFound('gig') : err; // deleted meanwhile
  });
  return {
    gig_id: row.gigId,
    signal: row.signal,
    context: row.context as 'search' | 'recommendation' | null,
    updated_at: isoTimestamp(row.updatedAt),
  };
}
