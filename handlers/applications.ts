// Applications: a worker applies, the client shortlists (also directly: an invitation) or
// rejects, the worker withdraws.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { ApiError, conflict, forbidden, notFound, validationFailed } from '../src/errors.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import { transition } from '../src/domain/state-machine.ts';
import {
  actorOf, applicationTransitions, type ApplicationAction, type ApplicationStatus,
} from '../src/domain/application.ts';
import {
  assertAcceptsApplications, assertAllowsShortlisting, assertClientOf, isClient, type GigStatus,
} from '../src/domain/gig.ts';
import { findVisibleGig } from '../db/repositories/gigs.ts';
import {
  findApplicationForParty, findApplicationOfWorker, getApplicationStatus, insertApplication,
  listGigApplications, listWorkerApplications, setApplicationStatus, type ApplicationRow,
} from '../db/repositories/applications.ts';
import { getUser } from '../db/repositories/users.ts';
import { recordEvent } from '../db/repositories/events.ts';
import type { Executor } from '../db/client.ts';
import { presentApplication } from '../src/presenters/applications.ts';

/** Application events go to both parties and carry the application as the API shows it. */
function recordApplicationEvent(tx: Executor, type: string, a: ApplicationRow, clientUserId: string, actorUserId: string) {
  return recordEvent(tx, {
    type,
    resourceType: 'application',
    resourceId: a.id,
    actorUserId,
    audienceUserIds: [a.workerUserId, clientUserId],
    data: presentApplication(a, clientUserId),
  });
}

/**
 * Moves the application from `expected` (the status the decision was made on) to the
 * transition's target. Of two concurrent changes exactly one applies; the other finds the status
 * changed and changes nothing.
 */
async function applyTransition(tx: Executor, a: ApplicationRow, clientUserId: string, action: ApplicationAction, actorUserId: string) {
  const t = transition(applicationTransitions, 'application', a.status as ApplicationStatus, action);
  const updated = await setApplicationStatus(tx, a.id, a.status as ApplicationStatus, t.to);
  if (!updated) {
    const now = await getApplicationStatus(tx, a.id);
    throw new ApiError('INVALID_STATE', `cannot ${action} an application that is ${now ?? 'gone'} (it changed while this request ran)`);
  }
  await recordApplicationEvent(tx, t.event, updated, clientUserId, actorUserId);
  return updated;
}

function listQuery(q: { status?: ApplicationStatus; limit?: number; cursor?: string }) {
  const limit = q.limit ?? DEFAULT_LIMIT;
  return { status: q.status, limit, beforeId: decodeCursor(q.cursor) };
}

type ApplicationHandlers = Handlers<
  'applyToGig' | 'listGigApplications' | 'shortlistWorker' | 'listMyApplications' | 'getApplication'
  | 'shortlistApplication' | 'rejectApplication' | 'withdrawApplication'
>;

export function applicationHandlers(ctx: AppContext): ApplicationHandlers {
  /** shortlist, reject, withdraw: the same steps, with the actor the action needs. */
  async function changeStatus(request: FastifyRequest<{ Params: { id: string } }>, action: ApplicationAction) {
    const { userId } = principalOf(request);
    return ctx.db.transaction(async (tx) => {
      // The gig's row is share-locked so that its status holds until this change commits.
      const a = await findApplicationForParty(tx, userId, request.params.id, true);
      if (!a) throw notFound('application');
      const role = a.workerUserId === userId ? 'worker' : 'client';
      if (role !== actorOf[action]) throw forbidden(`only the ${actorOf[action] === 'client' ? "gig's client" : 'worker'} can ${action} an application`);
      if (action === 'shortlist') assertAllowsShortlisting(a.gigStatus as GigStatus);
      return presentApplication(await applyTransition(tx, a, a.clientUserId, action, userId), a.clientUserId);
    });
  }

  return {
    async applyToGig(request, reply) {
      const { userId } = principalOf(request);
      const body = request.body ?? {};
      const created = await ctx.db.transaction(async (tx) => {
        const gig = await findVisibleGig(tx, userId, request.params.id, 'share');
        if (!gig) throw notFound('gig');
        if (gig.clientUserId === null) throw forbidden(`this gig comes from ${gig.source}; apply at its url`);
        if (gig.clientUserId === userId) throw forbidden('a client cannot apply to their own gig');
        assertAcceptsApplications(gig.status as GigStatus);
        const row = await insertApplication(tx, {
          gigId: gig.id,
          workerUserId: userId,
          origin: 'application',
          status: 'submitted',
          message: body.message ?? '',
          proposedRateCents: body.proposed_rate_cents ?? null,
        });
        if (!row) throw conflict('you already have an application for this gig (or the client invited you)');
        await recordApplicationEvent(tx, 'application.submitted', row, gig.clientUserId, userId);
        return presentApplication(row, gig.clientUserId);
      });
      return reply.code(201).send(created);
    },

    async listGigApplications(request) {
      const { userId } = principalOf(request);
      const gig = await findVisibleGig(ctx.db, userId, request.params.id);
      if (!gig) throw notFound('gig');
      if (!isClient(gig, userId)) throw forbidden("only the gig's client can list its applications");
      const q = listQuery(request.query);
      const rows = await listGigApplications(ctx.db, userId, gig.id, q);
      return page(rows, q.limit, (r) => presentApplication(r, userId));
    },

    async shortlistWorker(request, reply) {
      const { userId } = principalOf(request);
      const workerId = request.body.worker_user_id;
      const result = await ctx.db.transaction(async (tx) => {
        const gig = await findVisibleGig(tx, userId, request.params.id, 'share');
        if (!gig) throw notFound('gig');
        assertClientOf(gig, userId, 'shortlist workers for this gig');
        if (workerId === userId) throw validationFailed('body.worker_user_id', "is the gig's client; a client cannot shortlist themself");
        if (!(await getUser(tx, workerId))) throw notFound(`user ${workerId}`);
        assertAllowsShortlisting(gig.status as GigStatus);
        const invited = await insertApplication(tx, { gigId: gig.id, workerUserId: workerId, origin: 'invitation', status: 'shortlisted' });
        if (invited) {
          await recordApplicationEvent(tx, 'application.shortlisted', invited, userId, userId);
          return { status: 201, body: presentApplication(invited, userId) };
        }
        // The worker already applied (perhaps a moment ago): shortlist that application.
        const existing = (await findApplicationOfWorker(tx, gig.id, workerId))!;
        return { status: 200, body: presentApplication(await applyTransition(tx, existing, userId, 'shortlist', userId), userId) };
      });
      return reply.code(result.status).send(result.body);
    },

    async listMyApplications(request) {
      const { userId } = principalOf(request);
      const q = listQuery(request.query);
      const rows = await listWorkerApplications(ctx.db, userId, q);
      return page(rows, q.limit, (r) => presentApplication(r, r.clientUserId));
    },

    async getApplication(request) {
      const { userId } = principalOf(request);
      const a = await findApplicationForParty(ctx.db, userId, request.params.id);
      if (!a) throw notFound('application');
      return presentApplication(a, a.clientUserId);
    },

    shortlistApplication: (request) => changeStatus(request, 'shortlist'),
    rejectApplication: (request) => changeStatus(request, 'reject'),
    withdrawApplication: (request) => changeStatus(request, 'withdraw'),
  };
}
