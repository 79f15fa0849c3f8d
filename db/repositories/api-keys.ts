// API keys. Every function that touches a user's keys takes that user's id: a query cannot
// reach another user's rows.
import { and, count, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { preparedQuery } from '../prepared.ts';
import { apiKeys, users } from '../schema.ts';
import type { Db, Executor } from '../client.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Serialises the changes to one user's set of keys (the cap's count, then the insert). `no key
 * update`: rows that merely reference the user (their key-share locks) are not held up.
 */
export async function lockUserForKeys(tx: Executor, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
}

export async function countActiveKeys(db: Executor, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  return row?.n ?? 0;
}

/** Whether the key may approve contracts for its owner (an unknown key may not). */
export async function keyMayApprove(db: Executor, keyId: string): Promise<boolean> {
  const [row] = await db.select({ mayApprove: apiKeys.mayApprove }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  return row?.mayApprove ?? false;
}

/** Stores a key; the caller made its id and secret and passes only the secret's hash and display prefix. */
export async function insertApiKey(
  db: Executor,
  userId: string,
  input: {
    id: string;
    name: string;
    hostedAgentId: string | null;
    mayApprove: boolean;
    keyHash: string;
    keyPrefix: string;
    oauth?: { grantId: string; clientId: string; scopes: string[] };
  },
) {
  const { oauth, ...key } = input;
  const [row] = await db
    .insert(apiKeys)
    .values({ ...key, userId, ...(oauth ? { oauthGrantId: oauth.grantId, oauthClientId: oauth.clientId, scopes: oauth.scopes } : {}) })
    .returning();
  return row!;
}

/** The user's active key standing for an OAuth client's grant, if they granted that client before. */
export async function findActiveClientKey(db: Executor, userId: string, clientId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.oauthClientId, clientId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

/**
 * The active key with this hash, for authentication: every authenticated request runs it (the
 * server through ApiKeyCache, which keeps active keys only while it hears revokeApiKey's
 * announcements), so it is a prepared query (db/prepared.ts).
 */
export async function findActiveKeyByHash(db: Db, hash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await readActiveKeyByHash(db, { hash });
  return row;
}

const readActiveKeyByHash = preparedQuery('read_active_api_key_by_hash', (db, name) =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, sql.placeholder('hash')), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare(name),
);

export async function touchApiKey(db: Executor, id: string, at = new Date()): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
}

export async function listApiKeys(db: Executor, userId: string, page: { limit: number; beforeId?: string }) {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), page.beforeId ? lt(apiKeys.id, page.beforeId) : undefined))
    .orderBy(desc(apiKeys.id))
    .limit(page.limit + 1);
}

export async function getApiKey(db: Executor, userId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id)))
    .limit(1);
  return row;
}

/** Where revocations are announced (payload: the key's id), for caches of active keys (src/auth/key-cache.ts). */
export const API_KEY_REVOKED_CHANNEL = 'gm_api_key_revoked';

/**
 * Revokes the key if it is still active, and announces it to every process listening (delivered
 * when the transaction commits, not before). Returns the row if it was revoked now; undefined if it
 * is not the user's or was already revoked.
 */
export async function revokeApiKey(db: Executor, userId: string, id: string, replacedById?: string) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date(), replacedById: replacedById ?? null })
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  if (row) await db.execute(sql`select pg_notify(${API_KEY_REVOKED_CHANNEL}, ${row.id})`);
  return row;
}
