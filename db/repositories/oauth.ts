// The OAuth authorization server's storage (src/oauth/adapter.ts): records by model and id, looked
// up by the columns the provider asks for. Expired records are never returned, and the hourly
// housekeeping deletes them.
import { and, eq, gt, inArray, isNotNull, isNull, lt, notExists, or, sql } from 'drizzle-orm';
import { apiKeys, oauthRecords } from '../schema.ts';
import type { Executor } from '../client.ts';

export interface OAuthRecordInput {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  expiresAt: Date | null;
}

const live = () => or(isNull(oauthRecords.expiresAt), gt(oauthRecords.expiresAt, sql`now()`));

export async function upsertOAuthRecord(db: Executor, input: OAuthRecordInput): Promise<void> {
  const { model, id, ...rest } = input;
  await db
    .insert(oauthRecords)
    .values(input)
    .onConflictDoUpdate({ target: [oauthRecords.model, oauthRecords.id], set: { ...rest, consumedAt: null } });
}

type Column = 'id' | 'uid' | 'userCode';
const COLUMNS = { id: oauthRecords.id, uid: oauthRecords.uid, userCode: oauthRecords.userCode } as const;

/** A live record of the model by one of its lookup columns, with when it was consumed. */
export async function findOAuthRecord(db: Executor, model: string, by: Column, value: string) {
  const [row] = await db
    .select({ payload: oauthRecords.payload, consumedAt: oauthRecords.consumedAt })
    .from(oauthRecords)
    .where(and(eq(oauthRecords.model, model), eq(COLUMNS[by], value), live()))
    .limit(1);
  return row as { payload: Record<string, unknown>; consumedAt: Date | null } | undefined;
}

/** Marks the record used, if it was not yet: of two redemptions at once, only one gets true. */
export async function consumeOAuthRecord(db: Executor, model: string, id: string): Promise<boolean> {
  const rows = await db
    .update(oauthRecords)
    .set({ consumedAt: sql`now()` })
    .where(and(eq(oauthRecords.model, model), eq(oauthRecords.id, id), isNull(oauthRecords.consumedAt)))
    .returning({ id: oauthRecords.id });
  return rows.length > 0;
}

export async function deleteOAuthRecord(db: Executor, model: string, id: string): Promise<void> {
  await db.delete(oauthRecords).where(and(eq(oauthRecords.model, model), eq(oauthRecords.id, id)));
}

/** The records of one model that belong to a grant (the provider revokes a grant model by model). */
export async function deleteOAuthRecordsOfGrant(db: Executor, model: string, grantId: string): Promise<void> {
  await db.delete(oauthRecords).where(and(eq(oauthRecords.model, model), eq(oauthRecords.grantId, grantId)));
}

/** Every record of a grant (its codes and tokens, and the grant itself): the grant is revoked. */
export async function deleteOAuthGrant(db: Executor, grantId: string): Promise<void> {
  await db
    .delete(oauthRecords)
    .where(or(eq(oauthRecords.grantId, grantId), and(eq(oauthRecords.model, 'Grant'), eq(oauthRecords.id, grantId))));
}

export async function deleteExpiredOAuthRecords(db: Executor): Promise<number> {
  const deleted = await db.delete(oauthRecords).where(lt(oauthRecords.expiresAt, sql`now()`)).returning({ id: oauthRecords.id });
  return deleted.length;
}

/**
 * Clients registered dynamically (anyone may register one) that hold no live grant a day after
 * registering, and their registration tokens: otherwise registrations would pile up for ever.
 */
export async function deleteUnusedClients(db: Executor): Promise<void> {
  const unused = await db
    .delete(oauthRecords)
    .where(
      and(
        eq(oauthRecords.model, 'Client'),
        lt(oauthRecords.createdAt, sql`now() - interval '1 day'`),
        notExists(
          db
            .select({ id: apiKeys.id })
            .from(apiKeys)
            .where(and(eq(apiKeys.oauthClientId, oauthRecords.id), isNull(apiKeys.revokedAt))),
        ),
      ),
    )
    .returning({ id: oauthRecords.id });
  if (unused.length === 0) return;
  await db.delete(oauthRecords).where(
    and(
      eq(oauthRecords.model, 'RegistrationAccessToken'),
      inArray(
        sql`${oauthRecords.payload}->>'clientId'`,
        unused.map((c) => c.id),
      ),
    ),
  );
}

/**
 * Active keys standing for a grant the authorization server no longer has (a refresh token used
 * twice, a revocation at its endpoint, the grant's expiry): `grantId` narrows it to one grant.
 */
export async function keysOfEndedGrants(db: Executor, grantId?: string) {
  return db
    .select()
    .from(apiKeys)
    .where(
      and(
        isNotNull(apiKeys.oauthGrantId),
        isNull(apiKeys.revokedAt),
        grantId === undefined ? undefined : eq(apiKeys.oauthGrantId, grantId),
        notExists(
          db
            .select({ id: oauthRecords.id })
            .from(oauthRecords)
            .where(and(eq(oauthRecords.model, 'Grant'), eq(oauthRecords.id, apiKeys.oauthGrantId), live())),
        ),
      ),
    );
}

/**
 * The access token's grant and the API key that stands for it, if both are live: a revoked key
 * (its grant revoked on the keys page) stops the token on the next request, on every instance.
 */
export async function findLiveTokenKey(db: Executor, tokenId: string) {
  const [row] = await db
    .select({ payload: oauthRecords.payload, key: apiKeys })
    .from(oauthRecords)
    .innerJoin(apiKeys, and(eq(apiKeys.oauthGrantId, oauthRecords.grantId), isNull(apiKeys.revokedAt)))
    .where(and(eq(oauthRecords.model, 'AccessToken'), eq(oauthRecords.id, tokenId), live()))
    .limit(1);
  return row;
}
