// Gigs: publish, read, list, update (fields and lifecycle), delete. The rules live in
// src/services/gigs.ts; these map the API's fields to the service's and back.
import type { Handlers, RequestOf } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as gigs from '../src/services/gigs.ts';
import { presentGig } from '../src/presenters/gigs.ts';

type GigFields = Parameters<typeof gigs.updateGig>[3];

/** The PATCH body's fields (all but `status`) as the service's; undefined means "not sent". */
function fieldsOf(body: RequestOf<'updateGig'>['body']): GigFields {
  const fields: GigFields = {};
  if (body.title !== undefined) fields.title = body.title;
  if (body.description !== undefined) fields.description = body.description;
  if (body.scope !== undefined) fields.scope = body.scope;
  if (body.rate_cents !== undefined) fields.rateCents = body.rate_cents;
  if (body.tags !== undefined) fields.tags = body.tags;
  if (body.compensation_type !== undefined) fields.compensationType = body.compensation_type;
  if (body.compensation_min_cents !== undefined) fields.compensationMinCents = body.compensation_min_cents;
  if (body.compensation_max_cents !== undefined) fields.compensationMaxCents = body.compensation_max_cents;
  if (body.currency !== undefined) fields.currency = body.currency;
  return fields;
}

export function gigHandlers(): Handlers<'createGig' | 'getGig' | 'listGigs' | 'updateGig' | 'deleteGig'> {
  return {
    async createGig(request, reply, { ctx }) {
      const b = request.body;
      const gig = await gigs.createGig(ctx, actorOf(request), {
        title: b.title,
        description: b.description,
        scope: b.scope,
        rateCents: b.rate_cents,
        compensationType: b.compensation_type,
        compensationMinCents: b.compensation_min_cents,
        compensationMaxCents: b.compensation_max_cents,
        currency: b.currency,
        tags: b.tags,
        status: b.status,
      });
      reply.code(201);
      return presentGig(gig);
    },

    async getGig(request, _reply, { ctx }) {
      return presentGig(await gigs.getGig(ctx, actorOf(request), request.params.id));
    },

    async listGigs(request, _reply, { ctx }) {
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const rows = await gigs.listGigs(ctx, actorOf(request), {
        mine: q.owner === 'me',
        status: q.status,
        limit,
        beforeId: decodeCursor(q.cursor),
      });
      return page(rows, limit, presentGig);
    },

    async updateGig(request, _reply, { ctx }) {
      const gig = await gigs.updateGig(ctx, actorOf(request), request.params.id, fieldsOf(request.body), request.body.status);
      return presentGig(gig);
    },

    async deleteGig(request, reply, { ctx }) {
      await gigs.deleteGig(ctx, actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  };
}
