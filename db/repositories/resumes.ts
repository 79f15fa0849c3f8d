// A user's resume: the storage key on the user's row, and who may read the file.
import { and, eq, inArray, ne, notInArray } from 'drizzle-orm';
import { applications, contracts, gigs, negotiationRounds, negotiations, users } from '../schema.ts';
import type { ApplicationStatus, ContractStatus } from '../schema/column-values.ts';
import type { Executor, Tx } from '../client.ts';

/**
 * The user's resume key, their row locked so that two uploads of theirs run one after the other
 * (each replaces what the last one stored). `undefined`: no such user; `null`: no resume.
 */
export async function lockResumeKey(tx: Tx, userId: string): Promise<string | null | undefined> {
  const [row] = await tx.select({ key: users.resumeKey }).from(users).where(eq(users.id, userId)).limit(1).for('update');
  return row?.key;
}

export async function setResumeKey(tx: Tx, userId: string, key: string | null) {
  const [row] = await tx.update(users).set({ resumeKey: key, updatedAt: new Date() }).where(eq(users.id, userId)).returning();
  return row!;
}

export async function getResumeKey(db: Executor, userId: string): Promise<string | null | undefined> {
  const [row] = await db.select({ key: users.resumeKey }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.key;
}

/** The relations to a client that let them read a worker's resume, while they last (openapi.yaml, getResume). */
const LIVE_APPLICATION: ApplicationStatus[] = ['submitted', 'shortlisted'];
/** A contract counts until it is cancelled or expires unapproved; a completed one still does. */
const ENDED_CONTRACT: ContractStatus[] = ['cancelled', 'expired'];

/**
 * Whether `clientId` may read `workerId`'s resume: a relation the worker took part in, and only while
 * it lasts. An invitation alone is not one (anyone can send it for a credit): the worker answers it
 * by negotiating. So: an application the worker made, submitted or shortlisted, to a gig of the
 * client's that is not closed; an open negotiation in which the worker proposed a round; or a
 * contract between them (the worker agreed to its terms) that was not cancelled and did not expire.
 */
export async function isClientOfWorker(db: Executor, clientId: string, workerId: string): Promise<boolean> {
  const [applied] = await db
    .select({ id: applications.id })
    .from(applications)
    .innerJoin(gigs, eq(gigs.id, applications.gigId))
    .where(
      and(
        eq(applications.workerUserId, workerId),
        eq(gigs.clientUserId, clientId),
        eq(applications.origin, 'application'),
        inArray(applications.status, LIVE_APPLICATION),
        ne(gigs.status, 'closed'),
      ),
    )
    .limit(1);
  if (applied) return true;
  const [contracted] = await db
    .select({ id: contracts.id })
    .from(contracts)
    .where(and(eq(contracts.workerUserId, workerId), eq(contracts.clientUserId, clientId), notInArray(contracts.status, ENDED_CONTRACT)))
    .limit(1);
  if (contracted) return true;
  const [negotiating] = await db
    .select({ id: negotiations.id })
    .from(negotiations)
    .innerJoin(negotiationRounds, eq(negotiationRounds.negotiationId, negotiations.id))
    .where(
      and(
        eq(negotiations.workerUserId, workerId),
        eq(negotiations.clientUserId, clientId),
        eq(negotiations.status, 'open'),
        eq(negotiationRounds.proposerRole, 'worker'),
      ),
    )
    .limit(1);
  return negotiating !== undefined;
}
