// Owners' passkeys and the WebAuthn challenges handed out to them. Every read takes the owner's id:
// a passkey is its owner's alone.
import { and, asc, count, eq, lt } from 'drizzle-orm';
import { passkeys, webauthnChallenges } from '../schema.ts';
import type { Executor } from '../client.ts';

export type PasskeyRow = typeof passkeys.$inferSelect;
export type ChallengeRow = typeof webauthnChallenges.$inferSelect;

export function listPasskeys(db: Executor, userId: string): Promise<PasskeyRow[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

export async function countPasskeys(db: Executor, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return Number(row?.n ?? 0);
}

/** The owner's passkey with this credential id, if it is theirs. */
export async function getPasskeyByCredential(db: Executor, userId: string, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.userId, userId), eq(passkeys.credentialId, credentialId)))
    .limit(1);
  return row;
}

/** Adds a passkey; undefined when its credential is registered already (to anyone). */
export async function insertPasskey(db: Executor, row: typeof passkeys.$inferInsert): Promise<PasskeyRow | undefined> {
  const [inserted] = await db.insert(passkeys).values(row).onConflictDoNothing().returning();
  return inserted;
}

/** After an assertion: the authenticator's new signature counter, and when it was used. */
export async function recordPasskeyUse(db: Executor, id: string, counter: number): Promise<void> {
  await db.update(passkeys).set({ counter, lastUsedAt: new Date() }).where(eq(passkeys.id, id));
}

export async function deletePasskey(db: Executor, userId: string, id: string): Promise<PasskeyRow | undefined> {
  const [row] = await db
    .delete(passkeys)
    .where(and(eq(passkeys.userId, userId), eq(passkeys.id, id)))
    .returning();
  return row;
}

/** Hands out a challenge; the owner's expired ones go at the same time. */
export async function insertChallenge(db: Executor, row: typeof webauthnChallenges.$inferInsert): Promise<void> {
  await db.delete(webauthnChallenges).where(and(eq(webauthnChallenges.userId, row.userId), lt(webauthnChallenges.expiresAt, new Date())));
  await db.insert(webauthnChallenges).values(row);
}

/** Takes a challenge (once: it is deleted), if it was handed to this owner; the caller checks its purpose and expiry. */
export async function takeChallenge(db: Executor, userId: string, challenge: string): Promise<ChallengeRow | undefined> {
  const [row] = await db
    .delete(webauthnChallenges)
    .where(and(eq(webauthnChallenges.challenge, challenge), eq(webauthnChallenges.userId, userId)))
    .returning();
  return row;
}

/** Housekeeping: challenges nobody answered in time. */
export async function deleteExpiredChallenges(db: Executor): Promise<void> {
  await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, new Date()));
}
