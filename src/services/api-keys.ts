// API keys and the users the operator CLI makes: issuing, listing, revoking and rotating keys, each
// change with its event in the same transaction. The HTTP handlers and the operator CLI both go
// through here, so the rules live in one place. Secrets are made here and only their hash is stored.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import {
  countActiveKeys,
  getApiKey,
  insertApiKey,
  listApiKeys,
  lockUserForKeys,
  revokeApiKey,
  type ApiKeyRow,
} from '../../db/repositories/api-keys.ts';
import { insertUser } from '../../db/repositories/users.ts';
import { deleteOAuthGrant } from '../../db/repositories/oauth.ts';
import type { Executor } from '../../db/client.ts';
import { apiKeyEvent } from './events.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { newApiKey } from '../auth/secrets.ts';

type Db = Pick<Context, 'db'>;
/** This process's cache of active keys, when it has one: a revoked key is forgotten before the caller answers. */
type WithKeyCache = Db & Partial<Pick<Context, 'apiKeys'>>;

/** Stores a new key (the secret made here); returns the row and the secret, the only time it exists in clear. */
async function storeNewKey(
  tx: Executor,
  userId: string,
  input: { id?: string; name: string; hostedAgentId?: string | null; mayApprove?: boolean },
) {
  const key = newApiKey();
  const row = await insertApiKey(tx, userId, {
    id: input.id ?? newId(),
    name: input.name,
    hostedAgentId: input.hostedAgentId ?? null,
    mayApprove: input.mayApprove ?? true,
    keyHash: key.hash,
    keyPrefix: key.displayPrefix,
  });
  return { row, secret: key.secret };
}

/**
 * Active keys one user may hold. Each key has its own rate-limit budget (and /mcp sessions count
 * per owner), so without a cap an owner would multiply their budget by making keys.
 */
export const MAX_ACTIVE_KEYS_PER_USER = 10;

/** Creates a key for the user; returns the row and the secret. CONFLICT at the cap (a rotation needs no room). */
export async function issueApiKey(ctx: Db, actor: Actor, input: { name: string; hostedAgentId?: string | null; mayApprove?: boolean }) {
  return ctx.db.transaction(async (tx) => {
    await lockUserForKeys(tx, actor.userId);
    if ((await countActiveKeys(tx, actor.userId)) >= MAX_ACTIVE_KEYS_PER_USER) {
      throw conflict(`you have ${MAX_ACTIVE_KEYS_PER_USER} active API keys, the most allowed; revoke one first`);
    }
    const key = await storeNewKey(tx, actor.userId, {
      name: input.name.trim(),
      hostedAgentId: input.hostedAgentId,
      mayApprove: input.mayApprove,
    });
    await apiKeyEvent(tx, 'api_key.created', key.row, actor);
    return key;
  });
}

/** A user (an owner) with a first API key, as the operator CLI and the tests make them. */
export async function createUserWithKey(ctx: Db, displayName: string, keyName = 'cli') {
  return ctx.db.transaction(async (tx) => {
    const user = await insertUser(tx, { id: newId(), displayName });
    const key = await storeNewKey(tx, user.id, { name: keyName });
    await apiKeyEvent(tx, 'api_key.created', key.row, null);
    return { userId: user.id, apiKeyId: key.row.id, apiKey: key.secret };
  });
}

/** The user's keys, newest first (limit + 1 rows, for paging). */
export function listUserApiKeys(ctx: Db, actor: Actor, page: { limit: number; beforeId?: string }): Promise<ApiKeyRow[]> {
  return listApiKeys(ctx.db, actor.userId, page);
}

/** The user's key, or NOT_FOUND. */
export async function getUserApiKey(ctx: Db, actor: Actor, id: string): Promise<ApiKeyRow> {
  const row = await getApiKey(ctx.db, actor.userId, id);
  if (!row) throw notFound('API key');
  return row;
}

/** Why a conditional update on the user's key matched nothing: not theirs (404) or already revoked (409). */
async function explainMiss(ctx: Db, actor: Actor, id: string): Promise<never> {
  await getUserApiKey(ctx, actor, id);
  throw new ApiError('INVALID_STATE', 'the API key is already revoked');
}

/**
 * Revokes the user's key. Other processes hear of it from revokeApiKey's notification; this
 * process's cache forgets it before the caller answers, so the next request fails.
 */
export async function revokeUserApiKey(ctx: WithKeyCache, actor: Actor, id: string): Promise<ApiKeyRow> {
  const revoked = await ctx.db.transaction(async (tx) => {
    const row = await revokeApiKey(tx, actor.userId, id);
    if (row) await apiKeyEvent(tx, 'api_key.revoked', row, actor);
    // A grant's key: its tokens and refresh tokens go with it.
    if (row?.oauthGrantId) await deleteOAuthGrant(tx, row.oauthGrantId);
    return row;
  });
  ctx.apiKeys?.forget(id);
  return revoked ?? explainMiss(ctx, actor, id);
}

/**
 * Replaces an active key with a new one of the same name and agent. The old key is revoked by a
 * conditional update first, so of two concurrent rotations exactly one succeeds.
 */
export async function rotateUserApiKey(ctx: WithKeyCache, actor: Actor, id: string) {
  const current = await getUserApiKey(ctx, actor, id);
  if (current.oauthGrantId) {
    throw new ApiError(
      'INVALID_STATE',
      "this key stands for an OAuth client's grant and has no secret to rotate: revoke it, and the client asks you again",
    );
  }
  const rotated = await ctx.db.transaction(async (tx) => {
    const replacementId = newId();
    const old = await revokeApiKey(tx, actor.userId, id, replacementId);
    if (!old) return undefined;
    const key = await storeNewKey(tx, actor.userId, {
      id: replacementId,
      name: old.name,
      hostedAgentId: old.hostedAgentId,
      mayApprove: old.mayApprove,
    });
    await apiKeyEvent(tx, 'api_key.rotated', old, actor);
    return key;
  });
  ctx.apiKeys?.forget(id);
  return rotated ?? explainMiss(ctx, actor, id);
}
