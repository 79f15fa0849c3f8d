// Idempotency-Key records, scoped by user: one user's key never meets another's.
import { and, eq, lt, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../schema.ts';
import type { Executor } from '../client.ts';
import { isLockNotAvailable } from '../errors.ts';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export const RETENTION_HOURS = 24;

/**
 * Makes sure the key has a row, committed at once, so that every request with the key has a row to
 * lock: a new row is `in_flight` with no holder until a request locks it.
 */
export async function ensureKeyRow(db: Executor, userId: string, key: string, requestHash: string): Promise<void> {
  await db.insert(idempotencyKeys).values({ userId, key, requestHash, state: 'in_flight' }).onConflictDoNothing();
}

/**
 * Locks the key's row for the rest of the transaction, without waiting: undefined when another
 * request holds it (that request is still running). A request that died released its lock with its
 * connection, so its row can be locked again at once.
 */
export async function lockKey(tx: Executor, userId: string, key: string): Promise<IdempotencyRow | undefined | 'held'> {
  try {
    const [row] = await tx
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)))
      .limit(1)
      .for('update', { noWait: true });
    return row;
  } catch (err) {
    if (isLockNotAvailable(err)) return 'held';
    throw err;
  }
}

/** Whether a completed record is past its 24 h (a new request may then use the key afresh). */
export function isExpired(row: IdempotencyRow, now = new Date()): boolean {
  return row.createdAt.getTime() < now.getTime() - RETENTION_HOURS * 3_600_000;
}

/** The locked row becomes this request's: in flight, with its hash, counted from now. */
export async function takeKey(tx: Executor, userId: string, key: string, requestHash: string): Promise<void> {
  await tx
    .update(idempotencyKeys)
    .set({
      requestHash,
      state: 'in_flight',
      responseStatus: null,
      responseBody: null,
      responseContentType: null,
      createdAt: sql`now()`,
      lockedAt: sql`now()`,
    })
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
}

export async function completeKey(
  db: Executor,
  userId: string,
  key: string,
  response: { status: number; body: string | null; contentType: string | null },
) {
  await db
    .update(idempotencyKeys)
    .set({ state: 'completed', responseStatus: response.status, responseBody: response.body, responseContentType: response.contentType })
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
}

/** Forgets the key (the request failed, nothing of it was kept), so that a retry runs again. */
export async function releaseKey(db: Executor, userId: string, key: string) {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'in_flight')));
}

export async function deleteExpiredKeys(db: Executor) {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${RETENTION_HOURS})`));
}
