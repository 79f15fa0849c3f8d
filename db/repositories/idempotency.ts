// Idempotency-Key records, scoped by user: one user's key never meets another's.
import { and, eq, lt, or, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../schema.ts';
import type { Executor } from '../client.ts';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export const RETENTION_HOURS = 24;
/** An in-flight record older than this belongs to a request that died; a retry may take it over. */
export const STALE_LOCK_SECONDS = 300;

/** Claims the key for this request; returns the existing record when another request holds it. */
export async function claimKey(
  db: Executor,
  userId: string,
  key: string,
  requestHash: string,
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRow | undefined }> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ userId, key, requestHash, state: 'in_flight' })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length) return { claimed: true };
  // Expired, or abandoned by a request that never finished: take it over in one statement.
  const takenOver = await db
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
    .where(
      and(
        eq(idempotencyKeys.userId, userId),
        eq(idempotencyKeys.key, key),
        or(
          lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${RETENTION_HOURS})`),
          and(
            eq(idempotencyKeys.state, 'in_flight'),
            lt(idempotencyKeys.lockedAt, sql`now() - make_interval(secs => ${STALE_LOCK_SECONDS})`),
          ),
        ),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  if (takenOver.length) return { claimed: true };
  const [existing] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)))
    .limit(1);
  return { claimed: false, existing };
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

/** Forgets the key (the request failed on our side), so that a retry runs again. */
export async function releaseKey(db: Executor, userId: string, key: string) {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'in_flight')));
}

export async function deleteExpiredKeys(db: Executor) {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${RETENTION_HOURS})`));
}
