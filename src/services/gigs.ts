// Gigs: publish, read, list, change (fields and lifecycle), delete. Every change writes its event
// in the same transaction; a created or edited gig enqueues its embedding for semantic search.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import {
  assertClientOf,
  assertEditable,
  checkCompensationRange,
  defaultCompensationType,
  normalizeTags,
  statusChange,
  type GigStatus,
} from '../domain/gig.ts';
import {
  applicantIds,
  deleteClientGig,
  findVisibleGig,
  insertGig,
  listClientGigs,
  listVisibleGigs,
  updateClientGig,
  type GigFields,
  type GigRow,
  type PageQuery,
} from '../../db/repositories/gigs.ts';
import { isRestrictedDelete } from '../../db/errors.ts';
import { newId } from '../ids.ts';
import { gigEvent } from './events.ts';
import { enqueueGigEmbedding } from '../search/gig-embeddings.ts';

export interface NewGig {
  title: string;
  description?: string;
  scope?: string;
  rateCents?: number | null;
  compensationType?: GigFields['compensationType'];
  compensationMinCents?: number | null;
  compensationMaxCents?: number | null;
  currency?: string;
  tags?: string[];
  status?: GigStatus;
}

/** Titles are trimmed; tags trimmed, lowercased and deduplicated. */
function normalized(fields: GigFields): GigFields {
  const out = { ...fields };
  if (out.title !== undefined) out.title = out.title.trim();
  if (out.tags !== undefined) out.tags = normalizeTags(out.tags);
  return out;
}

export async function createGig(ctx: Pick<Context, 'db' | 'config' | 'jobs'>, actor: Actor, input: NewGig): Promise<GigRow> {
  const min = input.compensationMinCents ?? null;
  const max = input.compensationMaxCents ?? null;
  checkCompensationRange(min, max, 'compensation_max_cents');
  return ctx.db.transaction(async (tx) => {
    const row = await insertGig(tx, actor.userId, {
      id: newId(),
      title: input.title.trim(),
      description: input.description ?? '',
      scope: input.scope ?? '',
      rateCents: input.rateCents ?? null,
      compensationType: input.compensationType ?? defaultCompensationType(input.rateCents ?? undefined),
      compensationMinCents: min,
      compensationMaxCents: max,
      currency: input.currency ?? 'USD',
      tags: normalizeTags(input.tags ?? []),
      status: input.status ?? 'open',
    });
    await gigEvent(tx, 'gig.created', row, actor);
    await enqueueGigEmbedding(ctx, tx, row.id);
    return row;
  });
}

/** The gig if the caller may see it (a draft only by its client), else NOT_FOUND. */
export async function getGig(ctx: Pick<Context, 'db'>, actor: Actor, gigId: string): Promise<GigRow> {
  const gig = await findVisibleGig(ctx.db, actor.userId, gigId);
  if (!gig) throw notFound('gig');
  return gig;
}

/** The caller's own gigs (`mine`), in any status or one; else the gigs in `status` (open by default) anyone may see. */
export async function listGigs(
  ctx: Pick<Context, 'db'>,
  actor: Actor,
  query: PageQuery & { mine: boolean; status?: GigStatus },
): Promise<GigRow[]> {
  const { mine, ...page } = query;
  return mine
    ? listClientGigs(ctx.db, actor.userId, page)
    : listVisibleGigs(ctx.db, actor.userId, { ...page, status: query.status ?? 'open' });
}

/**
 * Changes fields and/or moves the status. The row lock makes concurrent changes apply one after
 * the other, each to the latest state. `fields` holds only what was sent.
 */
export async function updateGig(
  ctx: Pick<Context, 'db' | 'config' | 'jobs'>,
  actor: Actor,
  gigId: string,
  changes: GigFields,
  targetStatus?: GigStatus,
): Promise<GigRow> {
  const fields = normalized(changes);
  const fieldsChanged = Object.keys(fields).length > 0;
  return ctx.db.transaction(async (tx) => {
    const gig = await findVisibleGig(tx, actor.userId, gigId, 'update');
    if (!gig) throw notFound('gig');
    assertClientOf(gig, actor.userId, 'change this gig');
    const current = gig.status;
    if (fieldsChanged) assertEditable(current);
    const change = targetStatus ? statusChange(current, targetStatus) : null;
    if (fields.compensationMinCents !== undefined || fields.compensationMaxCents !== undefined) {
      checkCompensationRange(
        fields.compensationMinCents !== undefined ? fields.compensationMinCents : gig.compensationMinCents,
        fields.compensationMaxCents !== undefined ? fields.compensationMaxCents : gig.compensationMaxCents,
        fields.compensationMaxCents !== undefined ? 'compensation_max_cents' : 'compensation_min_cents',
      );
    }
    if (!fieldsChanged && !change) return gig;

    const columns: GigFields = { ...fields };
    if (change) {
      columns.status = change.to;
      // Discovery's freshness counts from publication, not from when the draft was started.
      if (change.action === 'publish') columns.postedAt = new Date();
    }
    const updated = (await updateClientGig(tx, actor.userId, gigId, columns))!;
    if (fieldsChanged) {
      await gigEvent(tx, 'gig.updated', updated, actor);
      await enqueueGigEmbedding(ctx, tx, gigId);
    }
    if (change) await gigEvent(tx, change.event, updated, actor);
    return updated;
  });
}

export async function deleteGig(ctx: Pick<Context, 'db'>, actor: Actor, gigId: string): Promise<void> {
  try {
    await ctx.db.transaction(async (tx) => {
      const gig = await findVisibleGig(tx, actor.userId, gigId, 'update');
      if (!gig) throw notFound('gig');
      assertClientOf(gig, actor.userId, 'delete this gig');
      // Applications are the workers' records too: a gig that has any is closed, not deleted. The
      // gig's row lock holds off a new application (which share-locks it) until this commits.
      const applicants = await applicantIds(tx, gigId);
      if (applicants.length) {
        throw conflict(
          `${applicants.length === 1 ? 'a worker has' : `${applicants.length} workers have`} applied to this gig; close it instead`,
        );
      }
      await gigEvent(tx, 'gig.deleted', gig, actor);
      await deleteClientGig(tx, actor.userId, gigId);
    });
  } catch (err) {
    // negotiations.gig_id is ON DELETE RESTRICT (contracts.gig_id NO ACTION): the database, not
    // a racy pre-check, refuses.
    if (isRestrictedDelete(err)) throw conflict('a negotiation refers to this gig; close it instead');
    throw err;
  }
}
