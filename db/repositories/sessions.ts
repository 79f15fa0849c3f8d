// Browser sessions: rows, so that sign-out and revocation work across instances.
import { and, eq, gt, isNull, lt, or, isNotNull } from 'drizzle-orm';
import { sessions } from '../schema.ts';
import type { Executor } from '../client.ts';
import { newId } from '../../src/ids.ts';
import { newSessionToken, sha256 } from '../../src/auth/secrets.ts';

export async function createSession(db: Executor, userId: string, ttlDays: number) {
  const token = newSessionToken();
  const [row] = await db.insert(sessions).values({
    id: newId(),
    tokenHash: sha256(token),
    userId,
    expiresAt: new Date(Date.now() + ttlDays * 86_400_000),
  }).returning();
  return { row: row!, token };
}

/** The live session for this cookie token. */
export async function findLiveSession(db: Executor, token: string) {
  const [row] = await db.select().from(sessions).where(and(
    eq(sessions.tokenHash, sha256(token)),
    isNull(sessions.revokedAt),
    gt(sessions.expiresAt, new Date()),
  )).limit(1);
  return row;
}

/** Signs out the session this cookie token belongs to; returns it, or undefined if none was live. */
export async function revokeSessionByToken(db: Executor, token: string) {
  const [row] = await db.update(sessions).set({ revokedAt: new Date() })
    .where(and(eq(sessions.tokenHash, sha256(token)), isNull(sessions.revokedAt)))
    .returning();
  return row;
}

/** Housekeeping: drops sessions that can no longer be used. */
export async function deleteDeadSessions(db: Executor): Promise<void> {
  await db.delete(sessions).where(or(lt(sessions.expiresAt, new Date()), isNotNull(sessions.revokedAt)));
}
