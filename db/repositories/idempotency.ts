// Idempotency-Key records, scoped by user: one user's key never meets another's. A request claims
// its key in a short transaction of its own; the results of its outside calls are recorded as it
// gets them; its response is recorded in the transaction of its effects (fenced by the claim's
// token, so an attempt that lost its claim commits nothing). No transaction spans the request.
import { and, eq, lt, sql } from 'drizzle-orm';
import { idempotencyKeys } from '../schema.ts';
import type { Db, Executor } from '../client.ts';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export const RETENTION_HOURS = 24;

/** Who holds a key: the user, the key, and the attempt's random token. */
export interface KeyClaim {
  userId: string;
  key: string;
  token: string;
}

export interface RecordedResponse {
  status: number;
  /** The serialized body; null for a response that showed a secret once (never stored). */
  body: string | null;
  contentType: string | null;
}

export type ClaimOutcome =
  /** This attempt holds the key; `phases` are what an earlier attempt of the same request recorded. */
  | { kind: 'claimed'; phases: Record<string, unknown> }
  | { kind: 'replay'; response: RecordedResponse }
  /** Another attempt holds it (still running, or dead less than the lock's time-out ago). */
  | { kind: 'busy'; retryAfterSeconds: number }
  /** The key belongs to another request. */
  | { kind: 'reused' };

const byKey = (userId: string, key: string) => and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));

/**
 * Claims the key for an attempt, in one short transaction. A key in flight whose holder has not
 * been heard of for `lockSeconds` is taken over: its holder died (or outlived the time-out), and
 * the fence in `fenceKey` keeps it from committing anything after that.
 */
export async function claimKey(db: Db, input: KeyClaim & { requestHash: string; lockSeconds: number }): Promise<ClaimOutcome> {
  const { userId, key, token, requestHash, lockSeconds } = input;
  const fresh = { requestHash, state: 'in_flight', lockedBy: token, lockedAt: sql`now()`, createdAt: sql`now()` } as const;
  const inserted = await db
    .insert(idempotencyKeys)
    .values({ userId, key, ...fresh })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length) return { kind: 'claimed', phases: {} };
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select({
        row: idempotencyKeys,
        expired: sql<boolean>`${idempotencyKeys.createdAt} < now() - make_interval(hours => ${RETENTION_HOURS})`,
        lockLeftSeconds: sql<number>`ceil(extract(epoch from ${idempotencyKeys.lockedAt} + make_interval(secs => ${lockSeconds}) - now()))::int`,
      })
      .from(idempotencyKeys)
      .where(byKey(userId, key))
      .for('update');
    // Forgotten a moment ago by an attempt that failed: the caller retries.
    if (!found) return { kind: 'busy', retryAfterSeconds: 1 };
    const { row, expired, lockLeftSeconds } = found;
    if (expired) {
      await tx
        .update(idempotencyKeys)
        .set({ ...fresh, phases: {}, responseStatus: null, responseBody: null, responseContentType: null })
        .where(byKey(userId, key));
      return { kind: 'claimed', phases: {} };
    }
    if (row.state === 'completed') {
      if (row.requestHash !== requestHash) return { kind: 'reused' };
      return { kind: 'replay', response: { status: row.responseStatus!, body: row.responseBody, contentType: row.responseContentType } };
    }
    if (row.lockedBy !== null && lockLeftSeconds > 0) return { kind: 'busy', retryAfterSeconds: lockLeftSeconds };
    const phases = row.phases ?? {};
    const resumed = Object.keys(phases).length > 0;
    // An attempt that died after an outside call binds the key to its request; one that died
    // before any left nothing, and the key is free for whatever request comes.
    if (resumed && row.requestHash !== requestHash) return { kind: 'reused' };
    await tx.update(idempotencyKeys).set({ requestHash, lockedBy: token, lockedAt: sql`now()` }).where(byKey(userId, key));
    return { kind: 'claimed', phases: resumed ? phases : {} };
  });
}

/** Records an outside call's result as a recovery point; false when the claim was lost meanwhile. */
export async function recordPhase(db: Executor, claim: KeyClaim, phase: string, result: unknown): Promise<boolean> {
  const updated = await db
    .update(idempotencyKeys)
    .set({ phases: sql`${idempotencyKeys.phases} || jsonb_build_object(${phase}::text, ${JSON.stringify(result ?? null)}::jsonb)` })
    .where(and(byKey(claim.userId, claim.key), eq(idempotencyKeys.lockedBy, claim.token), eq(idempotencyKeys.state, 'in_flight')))
    .returning({ key: idempotencyKeys.key });
  return updated.length > 0;
}

/**
 * Locks the key's row for the rest of `tx` and says whether this attempt still holds it. The
 * operation's effects are written after this, so two attempts of one request never both commit.
 */
export async function fenceKey(tx: Executor, claim: KeyClaim): Promise<boolean> {
  const [row] = await tx
    .select({ lockedBy: idempotencyKeys.lockedBy, state: idempotencyKeys.state })
    .from(idempotencyKeys)
    .where(byKey(claim.userId, claim.key))
    .for('update');
  return row?.state === 'in_flight' && row.lockedBy === claim.token;
}

/** The response, recorded once: a retry replays it. Only the attempt holding the key records. */
export async function completeKey(db: Executor, claim: KeyClaim, response: RecordedResponse): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      state: 'completed',
      lockedBy: null,
      responseStatus: response.status,
      responseBody: response.body,
      responseContentType: response.contentType,
    })
    .where(and(byKey(claim.userId, claim.key), eq(idempotencyKeys.lockedBy, claim.token)));
}

/**
 * The attempt ends without a response to keep: a key with no recorded phases is forgotten (a retry,
 * with any body, runs afresh); one with phases is let go, so that a retry resumes from them.
 */
export async function releaseKey(db: Executor, claim: KeyClaim): Promise<void> {
  const mine = and(byKey(claim.userId, claim.key), eq(idempotencyKeys.lockedBy, claim.token), eq(idempotencyKeys.state, 'in_flight'));
  await db.delete(idempotencyKeys).where(and(mine, sql`${idempotencyKeys.phases} = '{}'::jsonb`));
  await db.update(idempotencyKeys).set({ lockedBy: null }).where(mine);
}

export async function deleteExpiredKeys(db: Executor) {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${RETENTION_HOURS})`));
}
