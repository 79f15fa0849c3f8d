// API keys as the API shows them (schema ApiKey).
import type { ApiKeyRow } from '../../db/repositories/api-keys.ts';
import { parseScopes } from '../oauth/scopes.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

/** A key as the API shows it. The secret is never part of it. */
export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    hosted_agent_id: row.hostedAgentId,
    may_approve: row.mayApprove,
    prefix: row.keyPrefix,
    created_at: isoTimestamp(row.createdAt),
    last_used_at: isoTimestampOrNull(row.lastUsedAt),
    revoked_at: isoTimestampOrNull(row.revokedAt),
    replaced_by_id: row.replacedById,
    oauth_client_id: row.oauthClientId,
    scopes: row.scopes === null ? null : parseScopes(row.scopes.join(' ')),
  };
}
