// A user's resume: the storage key on the user's row, and who may read the file.
import { and, eq } from 'drizzle-orm';
import { applications, gigs, negotiations, users } from '../schema.ts';
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

/** Whether `clientId` is the client of a gig the worker applied to (or was invited to), or negotiated with them. */
export async function isClientOfWorker(db: Executor, clientId: string, workerId: string): Promise<boolean> {
  const [applied] = await db
    .select({ id: applications.id })
    .from(applications)
    .innerJoin(gigs, eq(gigs.id, applications.gigId))
    .where(and(eq(applications.workerUserId, workerId), eq(gigs.clientUserId, clientId)))
    .limit(1);
  if (applied) return true;
  const [negotiated] = await db
    .select({ id: negotiations.id })
    .from(negotiations)
    .where(and(eq(negotiations.workerUserId, workerId), eq(negotiations.clientUserId, clientId)))
    .limit(1);
  return negotiated !== undefined;
}
