// Browser sessions: rows, so that sign-out and revocation work across instances.
import { and, eq, gt, isNull, lt, or, isNotNull, sql } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { sessions } from '../schema.ts';
import type { Executor } from '../client.ts';

/** Stores a session; the caller made the token and passes only its hash. */
export async function insertSession(db: Executor, input: { id: string; tokenHash: string; userId: string; expiresAt: Date }) {
  const [row] = await db.insert(sessions).values(input).returning();
  return row!;
}

/** The live session whose cookie token hashes to `tokenHash`: every cookie-authenticated request reads it. */
export async function findLiveSession(db: Executor, tokenHash: string) {
  const [row] = await readLiveSession(db, { tokenHash });
  return row;
}

// Expiry against the database's clock (now()), so that the query has no value but the hash to fill.
const readLiveSession = preparedQuery('read_live_session', (db, name) =>
  db
    .select()
    .from(sessions)
    .where(and(eq(sessions.tokenHash, sql.placeholder('tokenHash')), isNull(sessions.revokedAt), gt(sessions.expiresAt, sql`now()`)))
    .limit(1)
    .prepare(name),
);

/** Signs out the session whose token hashes to `tokenHash`; returns it, or undefined if none was live. */
export async function revokeSessionByTokenHash(db: Executor, tokenHash: string) {
  const [row] = await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)))
    .returning();
  return row;
}

/** Housekeeping: drops sessions that can no longer be used. */
export async function deleteDeadSessions(db: Executor): Promise<void> {
  await db.delete(sessions).where(or(lt(sessions.expiresAt, new Date()), isNotNull(sessions.revokedAt)));
}
