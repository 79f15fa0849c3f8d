// Gigs: publish, read, list, update (fields and lifecycle), delete.
import type { AppContext } from '../src/context.ts';
import type { Handlers, RequestOf } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { conflict, notFound } from '../src/errors.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import {
  assertClientOf, assertEditable, checkCompensationRange, defaultCompensationType, normalizeTags,
  statusChange, type GigStatus,
} from '../src/domain/gig.ts';
import {
  applicantIds, deleteClientGig, findVisibleGig, insertGig, listClientGigs, listVisibleGigs,
  updateClientGig, type GigFields, type GigRow,
} from '../db/repositories/gigs.ts';
import { recordEvent } from '../db/repositories/events.ts';
import type { Executor } from '../db/client.ts';
import { isRestrictedDelete } from '../db/errors.ts';
import { presentGig } from '../src/presenters/gigs.ts';
import { enqueueGigEmbedding } from '../jobs/embeddings.ts';

/** Every gig event carries the gig as the API shows it; the client (and `others`) are its audience. */
function recordGigEvent(tx: Executor, type: string, gig: GigRow, actorUserId: string, others: string[] = []) {
  return recordEvent(tx, {
    type,
    resourceType: 'gig',
    resourceId: gig.id,
    actorUserId,
    audienceUserIds: [...(gig.clientUserId ? [gig.clientUserId] : []), ...others],
    data: presentGig(gig),
  });
}

/** The PATCH body's fields (all but `status`) as columns; undefined means "not sent". */
function fieldsOf(body: RequestOf<'updateGig'>['body']): GigFields {
  const fields: GigFields = {};
  if (body.title !== undefined) fields.title = body.title.trim();
  if (body.description !== undefined) fields.description = body.description;
  if (body.scope !== undefined) fields.scope = body.scope;
  if (body.rate_cents !== undefined) fields.rateCents = body.rate_cents;
  if (body.tags !== undefined) fields.tags = normalizeTags(body.tags);
  if (body.compensation_type !== undefined) fields.compensationType = body.compensation_type;
  if (body.compensation_min_cents !== undefined) fields.compensationMinCents = body.compensation_min_cents;
  if (body.compensation_max_cents !== undefined) fields.compensationMaxCents = body.compensation_max_cents;
  if (body.currency !== undefined) fields.currency = body.currency;
  return fields;
}

export function gigHandlers(ctx: AppContext): Handlers<'createGig' | 'getGig' | 'listGigs' | 'updateGig' | 'deleteGig'> {
  return {
    async createGig(request, reply) {
      const { userId } = principalOf(request);
      const b = request.body;
      const min = b.compensation_min_cents ?? null;
      const max = b.compensation_max_cents ?? null;
      checkCompensationRange(min, max, 'compensation_max_cents');
      const gig = await ctx.db.transaction(async (tx) => {
        const row = await insertGig(tx, userId, {
          title: b.title.trim(),
          description: b.description ?? '',
          scope: b.scope ?? '',
          rateCents: b.rate_cents ?? null,
          compensationType: b.compensation_type ?? defaultCompensationType(b.rate_cents),
          compensationMinCents: min,
          compensationMaxCents: max,
          currency: b.currency ?? 'USD',
          tags: normalizeTags(b.tags ?? []),
          status: b.status ?? 'open',
        });
        await recordGigEvent(tx, 'gig.created', row, userId);
        await enqueueGigEmbedding(ctx, tx, row.id); // discovery: semantic search
        return row;
      });
      return reply.code(201).send(presentGig(gig));
    },

    async getGig(request) {
      const { userId } = principalOf(request);
      const gig = await findVisibleGig(ctx.db, userId, request.params.id);
      if (!gig) throw notFound('gig');
      return presentGig(gig);
    },

    async listGigs(request) {
      const { userId } = principalOf(request);
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const beforeId = decodeCursor(q.cursor);
      const rows = q.owner === 'me'
        ? await listClientGigs(ctx.db, userId, { status: q.status, limit, beforeId })
        : await listVisibleGigs(ctx.db, userId, { status: q.status ?? 'open', limit, beforeId });
      return page(rows, limit, presentGig);
    },

    async updateGig(request) {
      const { userId } = principalOf(request);
      const { id } = request.params;
      const fields = fieldsOf(request.body);
      const fieldsChanged = Object.keys(fields).length > 0;
      return ctx.db.transaction(async (tx) => {
        // The row lock makes concurrent PATCHes apply one after the other, each to the latest state.
        const gig = await findVisibleGig(tx, userId, id, 'update');
        if (!gig) throw notFound('gig');
        assertClientOf(gig, userId, 'change this gig');
        const current = gig.status as GigStatus;
        if (fieldsChanged) assertEditable(current);
        const change = request.body.status ? statusChange(current, request.body.status) : null;
        if (fields.compensationMinCents !== undefined || fields.compensationMaxCents !== undefined) {
          checkCompensationRange(
            fields.compensationMinCents !== undefined ? fields.compensationMinCents : gig.compensationMinCents,
            fields.compensationMaxCents !== undefined ? fields.compensationMaxCents : gig.compensationMaxCents,
            fields.compensationMaxCents !== undefined ? 'compensation_max_cents' : 'compensation_min_cents',
          );
        }
        if (!fieldsChanged && !change) return presentGig(gig);

        if (change) {
          fields.status = change.to;
          // Discovery's freshness counts from publication, not from when the draft was started.
          if (change.action === 'publish') fields.postedAt = new Date();
        }
        const updated = (await updateClientGig(tx, userId, id, fields))!;
        if (fieldsChanged) await recordGigEvent(tx, 'gig.updated', updated, userId);
        if (fieldsChanged) await enqueueGigEmbedding(ctx, tx, id); // discovery: semantic search
        if (change) await recordGigEvent(tx, change.event, updated, userId);
        return presentGig(updated);
      });
    },

    async deleteGig(request, reply) {
      const { userId } = principalOf(request);
      const { id } = request.params;
      try {
        await ctx.db.transaction(async (tx) => {
          const gig = await findVisibleGig(tx, userId, id, 'update');
          if (!gig) throw notFound('gig');
          assertClientOf(gig, userId, 'delete this gig');
          // The workers who applied lose their applications with it: they hear about it too.
          await recordGigEvent(tx, 'gig.deleted', gig, userId, await applicantIds(tx, id));
          await deleteClientGig(tx, userId, id);
        });
      } catch (err) {
        // negotiations.gig_id is ON DELETE RESTRICT (contracts.gig_id NO ACTION): the database, not
        // a racy pre-check, refuses.
        if (isRestrictedDelete(err)) throw conflict('a negotiation refers to this gig; close it instead');
        throw err;
      }
      return reply.code(204).send();
    },
  };
}
