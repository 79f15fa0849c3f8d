// Applications: a worker applies, the client shortlists (also directly: an invitation) or
// rejects, the worker withdraws. The rules live in src/services/applications.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import type { ApplicationStatus } from '../src/domain/application.ts';
import * as applications from '../src/services/applications.ts';
import { presentApplication } from '../src/presenters/applications.ts';

const pageOf = (q: { status?: ApplicationStatus; limit?: number; cursor?: string }) => ({
  status: q.status,
  limit: q.limit ?? DEFAULT_LIMIT,
  beforeId: decodeCursor(q.cursor),
});

const present = ({ application, clientUserId }: applications.ApplicationWithClient) => presentApplication(application, clientUserId);

type ApplicationHandlers = Handlers<
  | 'applyToGig'
  | 'listGigApplications'
  | 'shortlistWorker'
  | 'listMyApplications'
  | 'getApplication'
  | 'shortlistApplication'
  | 'rejectApplication'
  | 'withdrawApplication'
>;

export function applicationHandlers(): ApplicationHandlers {
  return {
    async applyToGig(request, reply, { ctx }) {
      const body = request.body ?? {};
      const created = await applications.apply(ctx, actorOf(request), request.params.id, {
        message: body.message,
        proposedRateCents: body.proposed_rate_cents,
      });
      reply.code(201);
      return present(created);
    },

    async listGigApplications(request, _reply, { ctx }) {
      const actor = actorOf(request);
      const q = pageOf(request.query);
      const rows = await applications.listForGig(ctx, actor, request.params.id, q);
      return page(rows, q.limit, (r) => presentApplication(r, actor.userId));
    },

    async shortlistWorker(request, reply, { ctx }) {
      const result = await applications.shortlistWorker(ctx, actorOf(request), request.params.id, request.body.worker_user_id);
      reply.code(result.created ? 201 : 200);
      return present(result);
    },

    async listMyApplications(request, _reply, { ctx }) {
      const q = pageOf(request.query);
      const rows = await applications.listMine(ctx, actorOf(request), q);
      return page(rows, q.limit, (r) => presentApplication(r, r.clientUserId));
    },

    async getApplication(request, _reply, { ctx }) {
      const a = await applications.getApplication(ctx, actorOf(request), request.params.id);
      return presentApplication(a, a.clientUserId);
    },

    shortlistApplication: async (request, _reply, { ctx }) =>
      present(await applications.changeStatus(ctx, actorOf(request), request.params.id, 'shortlist')),
    rejectApplication: async (request, _reply, { ctx }) =>
      present(await applications.changeStatus(ctx, actorOf(request), request.params.id, 'reject')),
    withdrawApplication: async (request, _reply, { ctx }) =>
      present(await applications.changeStatus(ctx, actorOf(request), request.params.id, 'withdraw')),
  };
}
