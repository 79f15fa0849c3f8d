// Gigs. Reads take the viewer's id so that a draft never reaches anyone but its client; writes
// take the client's id so that a query cannot change another user's gig.
import { and, desc, eq, lt, ne, or, sql, type Placeholder } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { applications, gigs } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { GigStatus } from '../schema/column-values.ts';

export type GigRow = typeof gigs.$inferSelect;
/** The columns a client sets; ids, source and timestamps are the repository's. */
export type GigFields = Partial<
  Pick<
    typeof gigs.$inferInsert,
    | 'title'
    | 'description'
    | 'scope'
    | 'rateCents'
    | 'compensationType'
    | 'compensationMinCents'
    | 'compensationMaxCents'
    | 'currency'
    | 'tags'
    | 'status'
    | 'postedAt'
  >
>;

export interface PageQuery {
  limit: number;
  beforeId?: string;
}

export async function insertGig(
  db: Executor,
  clientUserId: string,
  fields: GigFields & { id: string; title: string; status: GigStatus },
): Promise<GigRow> {
  const [row] = await db
    .insert(gigs)
    .values({ ...fields, clientUserId, source: 'native' })
    .returning();
  return row!;
}

const visibleTo = (viewerId: string | Placeholder) => or(eq(gigs.clientUserId, viewerId), ne(gigs.status, 'draft'));

/**
 * The gig if `viewerId` may see it (a draft only by its client). `lock` takes a row lock for
 * the rest of the transaction: 'update' to change the gig, 'share' to rely on its status.
 */
export async function findVisibleGig(db: Executor, viewerId: string, id: string, lock?: 'update' | 'share'): Promise<GigRow | undefined> {
  if (!lock) return (await readVisibleGig(db, { id, viewerId }))[0];
  const [row] = await db
    .select()
    .from(gigs)
    .where(and(eq(gigs.id, id), visibleTo(viewerId)))
    .limit(1)
    .for(lock);
  return row;
}

const readVisibleGig = preparedQuery('read_visible_gig', (db, name) =>
  db
    .select()
    .from(gigs)
    .where(and(eq(gigs.id, sql.placeholder('id')), visibleTo(sql.placeholder('viewerId'))))
    .limit(1)
    .prepare(name),
);

/** The gigs `clientUserId` published, in any status or one, newest first (limit + 1 rows). */
export async function listClientGigs(db: Executor, clientUserId: string, q: PageQuery & { status?: GigStatus }): Promise<GigRow[]> {
  return db
    .select()
    .from(gigs)
    .where(
      and(
        eq(gigs.clientUserId, clientUserId),
        q.status ? eq(gigs.status, q.status) : undefined,
        q.beforeId ? lt(gigs.id, q.beforeId) : undefined,
      ),
    )
    .orderBy(desc(gigs.id))
    .limit(q.limit + 1);
}

/** The gigs in `status` that `viewerId` can see, newest first (limit + 1 rows). */
export async function listVisibleGigs(db: Executor, viewerId: string, q: PageQuery & { status: GigStatus }): Promise<GigRow[]> {
  return db
    .select()
    .from(gigs)
    .where(and(eq(gigs.status, q.status), visibleTo(viewerId), q.beforeId ? lt(gigs.id, q.beforeId) : undefined))
    .orderBy(desc(gigs.id))
    .limit(q.limit + 1);
}

export async function updateClientGig(db: Executor, clientUserId: string, id: string, fields: GigFields): Promise<GigRow | undefined> {
  const [row] = await db
    .update(gigs)
    .set({ ...fields, updatedAt: new Date() })
    .where(and(eq(gigs.id, id), eq(gigs.clientUserId, clientUserId)))
    .returning();
  return row;
}

/**
 * Deletes the gig (its applications cascade). Throws the database's foreign-key violation while a
 * negotiation refers to it (ON DELETE RESTRICT): the caller turns that into a 409.
 */
export async function deleteClientGig(db: Executor, clientUserId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(gigs)
    .where(and(eq(gigs.id, id), eq(gigs.clientUserId, clientUserId)))
    .returning({ id: gigs.id });
  return rows.length > 0;
}

/** The workers with an application or invitation for the gig. */
export async function applicantIds(db: Executor, gigId: string): Promise<string[]> {
  const rows = await db.select({ workerUserId: applications.workerUserId }).from(applications).where(eq(applications.gigId, gigId));
  return rows.map((r) => r.workerUserId);
}
