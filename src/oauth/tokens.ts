// An OAuth access token presented to /mcp, checked against the database on every request: issued
// for /mcp (its audience), not expired, and its grant's key still active, so a grant revoked on
// the keys page stops it at once on every instance. What it acts as is that key, with the scopes granted.
import type { Db } from '../../db/client.ts';
import { findLiveTokenKey } from '../../db/repositories/oauth.ts';
import type { OAuthProvider } from './provider.ts';
import { parseScopes, type OAuthScope } from './scopes.ts';

export interface TokenHolder {
  userId: string;
  apiKeyId: string;
  /** When the grant's key was last used (advisory), as for an API key. */
  lastUsedAt: Date | null;
  scopes: OAuthScope[];
}

export async function tokenHolder(db: Db, provider: OAuthProvider, resource: string, token: string): Promise<TokenHolder | undefined> {
  const accessToken = await provider.AccessToken.find(token);
  if (!accessToken || accessToken.isExpired || accessToken.aud !== resource) return undefined;
  const row = await findLiveTokenKey(db, accessToken.jti);
  if (!row || row.key.userId !== accessToken.accountId) return undefined;
  return { userId: row.key.userId, apiKeyId: row.key.id, lastUsedAt: row.key.lastUsedAt, scopes: parseScopes(accessToken.scope) };
}
