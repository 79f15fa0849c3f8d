// API keys. Every function that touches a user's keys takes that user's id: a query cannot
// reach another user's rows.
import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import { apiKeys } from '../schema.ts';
import type { Executor } from '../client.ts';
import { newId } from '../../src/ids.ts';
import { newApiKey } from '../../src/auth/secrets.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function createApiKey(db: Executor, userId: string, input: { name: string; hostedAgentId?: string | null; id?: string }) {
  const key = newApiKey();
  const [row] = await db.insert(apiKeys).values({
    id: input.id ?? newId(),
    userId,
    name: input.name,
    hostedAgentId: input.hostedAgentId ?? null,
    keyHash: key.hash,
    keyPrefix: key.displayPrefix,
  }).returning();
  return { row: row!, secret: key.secret };
}

/** The active key with this hash, for authentication. */
export async function findActiveKeyByHash(db: Executor, hash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt))).limit(1);
  return row;
}

export async function touchApiKey(db: Executor, id: string): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, id));
}

export async function listApiKeys(db: Executor, userId: string, page: { limit: number; beforeId?: string }) {
  return db.select().from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), page.beforeId ? lt(apiKeys.id, page.beforeId) : undefined))
    .orderBy(desc(apiKeys.id))
    .limit(page.limit + 1);
}

export async function getApiKey(db: Executor, userId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKeys).where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id))).limit(1);
  return row;
}

/** Revokes the key if it is still active; returns the row either way (undefined if not the user's). */
export async function revokeApiKey(db: Executor, userId: string, id: string, replacedById?: string) {
  const [row] = await db.update(apiKeys)
    .set({ revokedAt: new Date(), replacedById: replacedById ?? null })
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning();
  return row;
}
