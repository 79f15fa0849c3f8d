// Negotiations and their rounds. Reads take the caller's id: a negotiation is visible to its
// two parties only.
import { and, asc, desc, eq, lt, or, sql, type Placeholder } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { applications, gigs, negotiationRounds, negotiations, type ProposedMilestone } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { NegotiationStatus, PartyRole } from '../schema/column-values.ts';

export type NegotiationRow = typeof negotiations.$inferSelect;
export type RoundRow = typeof negotiationRounds.$inferSelect;

const isParty = (userId: string | Placeholder) => or(eq(negotiations.clientUserId, userId), eq(negotiations.workerUserId, userId));

export async function getNegotiationForParty(db: Executor, userId: string, id: string): Promise<NegotiationRow | undefined> {
  const [row] = await readNegotiationForParty(db, { id, userId });
  return row;
}

const readNegotiationForParty = preparedQuery('read_negotiation_for_party', (db, name) =>
  db
    .select()
    .from(negotiations)
    .where(and(eq(negotiations.id, sql.placeholder('id')), isParty(sql.placeholder('userId'))))
    .limit(1)
    .prepare(name),
);

/** The same, locked for the rest of the transaction: concurrent moves on one negotiation queue up. */
export async function lockNegotiationForParty(tx: Executor, userId: string, id: string): Promise<NegotiationRow | undefined> {
  const [row] = await tx
    .select()
    .from(negotiations)
    .where(and(eq(negotiations.id, id), isParty(userId)))
    .limit(1)
    .for('update');
  return row;
}

export async function lockNegotiation(tx: Executor, id: string): Promise<NegotiationRow | undefined> {
  const [row] = await tx.select().from(negotiations).where(eq(negotiations.id, id)).limit(1).for('update');
  return row;
}

export async function listNegotiationsForParty(
  db: Executor,
  userId: string,
  filter: { status?: NegotiationStatus; gigId?: string; limit: number; beforeId?: string },
) {
  return db
    .select()
    .from(negotiations)
    .where(
      and(
        isParty(userId),
        filter.status ? eq(negotiations.status, filter.status) : undefined,
        filter.gigId ? eq(negotiations.gigId, filter.gigId) : undefined,
        filter.beforeId ? lt(negotiations.id, filter.beforeId) : undefined,
      ),
    )
    .orderBy(desc(negotiations.id))
    .limit(filter.limit + 1);
}

export async function insertNegotiation(tx: Executor, input: { id: string; gigId: string; clientUserId: string; workerUserId: string }) {
  const [row] = await tx
    .insert(negotiations)
    .values({ status: 'open', ...input })
    .returning();
  return row!;
}

export async function setNegotiationStatus(tx: Executor, id: string, status: NegotiationStatus, extra: Partial<NegotiationRow> = {}) {
  const [row] = await tx
    .update(negotiations)
    .set({ ...extra, status, updatedAt: new Date() })
    .where(eq(negotiations.id, id))
    .returning();
  return row!;
}

export async function markContactShared(tx: Executor, id: string, role: PartyRole) {
  const column =
    role === 'client'
      ? { clientContactSharedAt: sql`coalesce(${negotiations.clientContactSharedAt}, now())` }
      : { workerContactSharedAt: sql`coalesce(${negotiations.workerContactSharedAt}, now())` };
  const [row] = await tx
    .update(negotiations)
    .set({ ...column, updatedAt: new Date() })
    .where(eq(negotiations.id, id))
    .returning();
  return row!;
}

export interface RoundTerms {
  rateCents: number | null;
  hoursPerWeek: number | null;
  startDate: string | null;
  payoutDelayDays: number | null;
  currency: string;
  milestones: ProposedMilestone[];
  notes: string;
}

export async function insertRound(
  tx: Executor,
  id: string,
  negotiationId: string,
  number: number,
  proposer: { userId: string; role: PartyRole },
  terms: RoundTerms,
) {
  const [row] = await tx
    .insert(negotiationRounds)
    .values({
      id,
      negotiationId,
      number,
      proposerUserId: proposer.userId,
      proposerRole: proposer.role,
      ...terms,
    })
    .returning();
  return row!;
}

export async function listRounds(db: Executor, negotiationIds: string[]): Promise<RoundRow[]> {
  if (negotiationIds.length === 0) return [];
  // One negotiation (its view): a prepared query; a page of them: built as ever.
  if (negotiationIds.length === 1) return readRoundsOfNegotiation(db, { negotiationId: negotiationIds[0] });
  return db
    .select()
    .from(negotiationRounds)
    .where(sql`${negotiationRounds.negotiationId} in ${negotiationIds}`)
    .orderBy(asc(negotiationRounds.negotiationId), asc(negotiationRounds.number));
}

const readRoundsOfNegotiation = preparedQuery('read_rounds_of_negotiation', (db, name) =>
  db
    .select()
    .from(negotiationRounds)
    .where(eq(negotiationRounds.negotiationId, sql.placeholder('negotiationId')))
    .orderBy(asc(negotiationRounds.number))
    .prepare(name),
);

export async function latestRound(db: Executor, negotiationId: string): Promise<RoundRow | undefined> {
  const [row] = await db
    .select()
    .from(negotiationRounds)
    .where(eq(negotiationRounds.negotiationId, negotiationId))
    .orderBy(desc(negotiationRounds.number))
    .limit(1);
  return row;
}

/** The gig a negotiation is about (status and client), or undefined. */
export async function getGigHeader(db: Executor, gigId: string) {
  const [row] = await db
    .select({ id: gigs.id, clientUserId: gigs.clientUserId, status: gigs.status, currency: gigs.currency })
    .from(gigs)
    .where(eq(gigs.id, gigId))
    .limit(1);
  return row;
}

/** The worker's application status on the gig, or undefined when there is none. */
export async function applicationStatus(db: Executor, gigId: string, workerUserId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ status: applications.status })
    .from(applications)
    .where(and(eq(applications.gigId, gigId), eq(applications.workerUserId, workerUserId)))
    .limit(1);
  return row?.status;
}
