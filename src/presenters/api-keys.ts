// API keys as the API shows them (schema ApiKey).
import type { ApiKeyRow } from '../../db/repositories/api-keys.ts';

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
