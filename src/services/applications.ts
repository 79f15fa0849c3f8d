// Applications: a worker applies, the client shortlists (also directly: an invitation) or rejects,
// the worker withdraws. Every change writes its event in the same transaction; shortlisting costs
// the client a match (src/services/credits.ts), charged in that transaction too.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { ApiError, conflict, forbidden, notFound, validationFailed } from '../errors.ts';
import { transition } from '../domain/state-machine.ts';
import { actorOf, applicationTransitions, type ApplicationAction, type ApplicationStatus } from '../domain/application.ts';
import { assertAcceptsApplications, assertAllowsShortlisting, assertClientOf, isClient } from '../domain/gig.ts';
import type { Executor } from '../../db/client.ts';
import { findVisibleGig, type PageQuery } from '../../db/repositories/gigs.ts';
import {
  findApplicationForParty,
  findApplicationOfWorker,
  getApplicationStatus,
  insertApplication,
  listGigApplications,
  listWorkerApplications,
  setApplicationStatus,
  type ApplicationRow,
  type ApplicationWithGig,
} from '../../db/repositories/applications.ts';
import { getUser } from '../../db/repositories/users.ts';
import { newId } from '../ids.ts';
import { applicationEvent } from './events.ts';
import { chargeForMatch } from './credits.ts';

type Db = Pick<Context, 'db'>;
type ApplicationPage = PageQuery & { status?: ApplicationStatus };
/** An application with the client of its gig (whom the API shows on it). */
export interface ApplicationWithClient {
  application: ApplicationRow;
  clientUserId: string;
}

/**
 * Moves the application from the status the decision was made on to the transition's target. Of
 * two concurrent changes exactly one applies; the other finds the status changed and changes nothing.
 */
async function applyTransition(tx: Executor, a: ApplicationRow, clientUserId: string, action: ApplicationAction, actor: Actor) {
  const t = transition(applicationTransitions, 'application', a.status, action);
  const updated = await setApplicationStatus(tx, a.id, a.status, t.to);
  if (!updated) {
    const now = await getApplicationStatus(tx, a.id);
    throw new ApiError('INVALID_STATE', `cannot ${action} an application that is ${now ?? 'gone'} (it changed while this request ran)`);
  }
  await applicationEvent(tx, t.event, updated, clientUserId, actor);
  return updated;
}

export async function apply(
  ctx: Db,
  actor: Actor,
  gigId: string,
  input: { message?: string; proposedRateCents?: number | null },
): Promise<ApplicationWithClient> {
  return ctx.db.transaction(async (tx) => {
    const gig = await findVisibleGig(tx, actor.userId, gigId, 'share');
    if (!gig) throw notFound('gig');
    if (gig.clientUserId === null) throw forbidden(`this gig comes from ${gig.source}; apply at its url`);
    if (gig.clientUserId === actor.userId) throw forbidden('a client cannot apply to their own gig');
    assertAcceptsApplications(gig.status);
    const row = await insertApplication(tx, {
      id: newId(),
      gigId: gig.id,
      workerUserId: actor.userId,
      origin: 'application',
      status: 'submitted',
      message: input.message ?? '',
      proposedRateCents: input.proposedRateCents ?? null,
    });
    if (!row) throw conflict('you already have an application for this gig (or the client invited you)');
    await applicationEvent(tx, 'application.submitted', row, gig.clientUserId, actor);
    return { application: row, clientUserId: gig.clientUserId };
  });
}

/** The applications to the caller's gig, newest first (limit + 1 rows). */
export async function listForGig(ctx: Db, actor: Actor, gigId: string, page: ApplicationPage): Promise<ApplicationWithGig[]> {
  const gig = await findVisibleGig(ctx.db, actor.userId, gigId);
  if (!gig) throw notFound('gig');
  if (!isClient(gig, actor.userId)) throw forbidden("only the gig's client can list its applications");
  return listGigApplications(ctx.db, actor.userId, gig.id, page);
}

/**
 * The client shortlists a worker directly (an invitation, `created`), or, when the worker already
 * applied (perhaps a moment ago), shortlists that application.
 */
export async function shortlistWorker(
  ctx: Db,
  actor: Actor,
  gigId: string,
  workerId: string,
): Promise<ApplicationWithClient & { created: boolean }> {
  return ctx.db.transaction(async (tx) => {
    const gig = await findVisibleGig(tx, actor.userId, gigId, 'share');
    if (!gig) throw notFound('gig');
    assertClientOf(gig, actor.userId, 'shortlist workers for this gig');
    if (workerId === actor.userId) throw validationFailed('body.worker_user_id', "is the gig's client; a client cannot shortlist themself");
    if (!(await getUser(tx, workerId))) throw notFound(`user ${workerId}`);
    assertAllowsShortlisting(gig.status);
    const invited = await insertApplication(tx, {
      id: newId(),
      gigId: gig.id,
      workerUserId: workerId,
      origin: 'invitation',
      status: 'shortlisted',
    });
    if (invited) {
      await chargeForMatch(tx, { clientUserId: actor.userId, applicationId: invited.id });
      await applicationEvent(tx, 'application.shortlisted', invited, actor.userId, actor);
      return { application: invited, clientUserId: actor.userId, created: true };
    }
    const existing = (await findApplicationOfWorker(tx, gig.id, workerId))!;
    const shortlisted = await applyTransition(tx, existing, actor.userId, 'shortlist', actor);
    await chargeForMatch(tx, { clientUserId: actor.userId, applicationId: shortlisted.id });
    return { application: shortlisted, clientUserId: actor.userId, created: false };
  });
}

/** The caller's own applications and invitations, newest first (limit + 1 rows). */
export function listMine(ctx: Db, actor: Actor, page: ApplicationPage): Promise<ApplicationWithGig[]> {
  return listWorkerApplications(ctx.db, actor.userId, page);
}

/** The application if the caller is its worker or its gig's client, else NOT_FOUND. */
export async function getApplication(ctx: Db, actor: Actor, applicationId: string): Promise<ApplicationWithGig> {
  const a = await findApplicationForParty(ctx.db, actor.userId, applicationId);
  if (!a) throw notFound('application');
  return a;
}

/** shortlist, reject, withdraw: the same steps, by the party each action belongs to. */
export async function changeStatus(
  ctx: Db,
  actor: Actor,
  applicationId: string,
  action: ApplicationAction,
): Promise<ApplicationWithClient> {
  return ctx.db.transaction(async (tx) => {
    // The gig's row is share-locked so that its status holds until this change commits.
    const a = await findApplicationForParty(tx, actor.userId, applicationId, true);
    if (!a) throw notFound('application');
    const role = a.workerUserId === actor.userId ? 'worker' : 'client';
    if (role !== actorOf[action])
      throw forbidden(`only the ${actorOf[action] === 'client' ? "gig's client" : 'worker'} can ${action} an application`);
    if (action === 'shortlist') assertAllowsShortlisting(a.gigStatus);
    const changed = await applyTransition(tx, a, a.clientUserId, action, actor);
    // A match costs the client; too small a balance (402) rolls the shortlisting back.
    if (action === 'shortlist') await chargeForMatch(tx, { clientUserId: a.clientUserId, applicationId: a.id });
    return { application: changed, clientUserId: a.clientUserId };
  });
}
