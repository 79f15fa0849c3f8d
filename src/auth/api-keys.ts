// Issuing, revoking and rotating API keys, each with its event in the same transaction. The HTTP
// handlers and the operator CLI both go through here, so the rules live in one place.
import type { Db } from '../../db/client.ts';
import { createApiKey, getApiKey, revokeApiKey, type ApiKeyRow } from '../../db/repositories/api-keys.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import { ApiError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ApiKeyCache } from './key-cache.ts';

/** A key as the API shows it. The secret is never part of it. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    hosted_agent_id: row.hostedAgentId,
    prefix: row.keyPrefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    replaced_by_id: row.replacedById,
  };
}

const keyEvent = (type: string, row: ApiKeyRow, actorUserId: string | null) => ({
  type,
  resourceType: 'api_key',
  resourceId: row.id,
  actorUserId,
  audienceUserIds: [row.userId],
  data: presentApiKey(row),
});

/** Creates a key for the user; returns the row and the secret (the only time it exists in clear). */
export async function issueApiKey(db: Db, userId: string, input: { name: string; hostedAgentId?: string | null }) {
  return db.transaction(async (tx) => {
    const key = await createApiKey(tx, userId, input);
    await recordEvent(tx, keyEvent('api_key.created', key.row, userId));
    return key;
  });
}

/** Why a conditional update on the user's key matched nothing: not theirs (404) or already revoked (409). */
async function explainMiss(db: Db, userId: string, id: string): Promise<never> {
  const row = await getApiKey(db, userId, id);
  if (!row) throw notFound('API key');
  throw new ApiError('INVALID_STATE', 'the API key is already revoked');
}

/**
 * Revokes the user's key. Other processes hear of it from revokeApiKey's notification; `keys` (this
 * process's cache, if it has one) forgets it before the caller answers, so the next request fails.
 */
export async function revokeUserApiKey(db: Db, userId: string, id: string, keys?: ApiKeyCache): Promise<ApiKeyRow> {
  const revoked = await db.transaction(async (tx) => {
    const row = await revokeApiKey(tx, userId, id);
    if (row) await recordEvent(tx, keyEvent('api_key.revoked', row, userId));
    return row;
  });
  keys?.forget(id);
  return revoked ?? explainMiss(db, userId, id);
}

/**
 * Replaces an active key with a new one of the same name and agent. The old key is revoked by a
 * conditional update first, so of two concurrent rotations exactly one succeeds.
 */
export async function rotateUserApiKey(db: Db, userId: string, id: string, keys?: ApiKeyCache) {
  const rotated = await db.transaction(async (tx) => {
    const replacementId = newId();
    const old = await revokeApiKey(tx, userId, id, replacementId);
    if (!old) return undefined;
    const key = await createApiKey(tx, userId, { id: replacementId, name: old.name, hostedAgentId: old.hostedAgentId });
    await recordEvent(tx, keyEvent('api_key.rotated', old, userId));
    return key;
  });
  keys?.forget(id);
  return rotated ?? explainMiss(db, userId, id);
}
