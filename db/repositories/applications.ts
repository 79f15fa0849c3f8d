// Applications and invitations. Every read is scoped to a party: the worker, or the client of the
// gig (reached through the gig), so a query cannot show an application to anyone else.
import { and, desc, eq, getTableColumns, lt, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { applications, gigs } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { ApplicationOrigin, ApplicationStatus, GigStatus } from '../schema/column-values.ts';
import type { PageQuery } from './gigs.ts';

export type ApplicationRow = typeof applications.$inferSelect;
/** An application with what the rules need from its gig. */
export type ApplicationWithGig = ApplicationRow & { clientUserId: string; gigStatus: GigStatus };

const withGig = {
  ...getTableColumns(applications),
  // Applications only exist for native gigs, which always have a client.
  clientUserId: gigs.clientUserId,
  gigStatus: gigs.status,
};

export interface NewApplication {
  id: string;
  gigId: string;
  workerUserId: string;
  origin: ApplicationOrigin;
  status: ApplicationStatus;
  message?: string;
  proposedRateCents?: number | null;
}

/**
 * Inserts unless the worker already has one for this gig; the unique index (gig, worker) decides,
 * so of two concurrent inserts exactly one returns a row.
 */
export async function insertApplication(db: Executor, values: NewApplication): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .insert(applications)
    .values(values)
    .onConflictDoNothing({ target: [applications.gigId, applications.workerUserId] })
    .returning();
  return row;
}

/**
 * The application if `userId` is its worker or its gig's client. `lockGig` takes a share lock on
 * the gig so that its status cannot change until the transaction ends.
 */
export async function findApplicationForParty(
  db: Executor,
  userId: string,
  id: string,
  lockGig = false,
): Promise<ApplicationWithGig | undefined> {
  if (!lockGig) return (await readApplicationForParty(db, { id, userId }))[0] as ApplicationWithGig | undefined;
  const [row] = await forParty(db, id, userId).for('share', { of: gigs });
  return row as ApplicationWithGig | undefined;
}

const forParty = (db: Executor, id: string | Placeholder, userId: string | Placeholder) =>
  db
    .select(withGig)
    .from(applications)
    .innerJoin(gigs, eq(gigs.id, applications.gigId))
    .where(and(eq(applications.id, id), or(eq(applications.workerUserId, userId), eq(gigs.clientUserId, userId))))
    .limit(1);

const readApplicationForParty = preparedQuery('read_application_for_party', (db, name) =>
  forParty(db, sql.placeholder('id'), sql.placeholder('userId')).prepare(name),
);

/** The worker's application for the gig, if any (for the gig's client, who checked the gig). */
export async function findApplicationOfWorker(db: Executor, gigId: string, workerUserId: string): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.gigId, gigId), eq(applications.workerUserId, workerUserId)))
    .limit(1);
  return row;
}

/**
 * Moves the application to `to` only if it is still in `expected`, the status the caller decided
 * on: of two concurrent changes, exactly one takes effect. Undefined when it no longer was.
 */
export async function setApplicationStatus(
  db: Executor,
  id: string,
  expected: ApplicationStatus,
  to: ApplicationStatus,
): Promise<ApplicationRow | undefined> {
  const [row] = await db
    .update(applications)
    .set({ status: to, updatedAt: new Date() })
    .where(and(eq(applications.id, id), eq(applications.status, expected)))
    .returning();
  return row;
}

export async function getApplicationStatus(db: Executor, id: string): Promise<ApplicationStatus | undefined> {
  const [row] = await db.select({ status: applications.status }).from(applications).where(eq(applications.id, id)).limit(1);
  return row?.status;
}

type ApplicationPage = PageQuery & { status?: ApplicationStatus };

/** Applications with their gig matching `scope`, in the status asked, newest first (limit + 1 rows). */
async function applicationPage(db: Executor, scope: SQL, q: ApplicationPage): Promise<ApplicationWithGig[]> {
  const rows = await db
    .select(withGig)
    .from(applications)
    .innerJoin(gigs, eq(gigs.id, applications.gigId))
    .where(and(scope, q.status ? eq(applications.status, q.status) : undefined, q.beforeId ? lt(applications.id, q.beforeId) : undefined))
    .orderBy(desc(applications.id))
    .limit(q.limit + 1);
  return rows as ApplicationWithGig[];
}

/** The applications to a gig of `clientUserId`, newest first (limit + 1 rows). */
export function listGigApplications(db: Executor, clientUserId: string, gigId: string, q: ApplicationPage): Promise<ApplicationWithGig[]> {
  return applicationPage(db, and(eq(applications.gigId, gigId), eq(gigs.clientUserId, clientUserId))!, q);
}

/** The worker's own applications and invitations, newest first (limit + 1 rows). */
export function listWorkerApplications(db: Executor, workerUserId: string, q: ApplicationPage): Promise<ApplicationWithGig[]> {
  return applicationPage(db, eq(applications.workerUserId, workerUserId), q);
}
