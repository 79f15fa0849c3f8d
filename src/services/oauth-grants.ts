// An owner's consent to an OAuth client (src/oauth/consent.ts) becomes an API key of theirs that
// stands for the grant: it has no secret (the client holds tokens instead), it carries the granted
// scopes, and it is listed and revoked on the keys page like any key. So a token acts exactly as
// such a key would: the key's id names its actions in events, its rate-limit budget, its approval
// rights (`approve` scope: may_approve, under the owner's policy). One client holds one live grant
// per owner: consenting again replaces the previous one.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import {
  countActiveKeys,
  findActiveClientKey,
  insertApiKey,
  lockUserForKeys,
  revokeApiKey,
  type ApiKeyRow,
} from '../../db/repositories/api-keys.ts';
import { deleteOAuthGrant, keysOfEndedGrants } from '../../db/repositories/oauth.ts';
import { apiKeyEvent } from './events.ts';
import { conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { newApiKey } from '../auth/secrets.ts';
import { MAX_ACTIVE_KEYS_PER_USER } from './api-keys.ts';
import type { OAuthScope } from '../oauth/scopes.ts';

const NAME_LENGTH = 100;

export interface GrantedClient {
  grantId: string;
  clientId: string;
  /** The client's name as its registration or metadata document gives it, else its id. */
  clientName: string;
  scopes: OAuthScope[];
}

/** Records the owner's grant as a key; the previous grant of the same client ends in the same transaction. */
export async function keyForGrant(ctx: Pick<Context, 'db' | 'apiKeys'>, actor: Actor, client: GrantedClient): Promise<ApiKeyRow> {
  let replaced: ApiKeyRow | undefined;
  const key = await ctx.db.transaction(async (tx) => {
    await lockUserForKeys(tx, actor.userId);
    const previous = await findActiveClientKey(tx, actor.userId, client.clientId);
    if (previous) {
      replaced = await revokeApiKey(tx, actor.userId, previous.id);
      if (replaced) await apiKeyEvent(tx, 'api_key.revoked', replaced, actor);
      if (previous.oauthGrantId) await deleteOAuthGrant(tx, previous.oauthGrantId);
    }
    if ((await countActiveKeys(tx, actor.userId)) >= MAX_ACTIVE_KEYS_PER_USER) {
      throw conflict(`you have ${MAX_ACTIVE_KEYS_PER_USER} active API keys and grants, the most allowed; revoke one first`);
    }
    const row = await insertApiKey(tx, actor.userId, {
      id: newId(),
      name: client.clientName.slice(0, NAME_LENGTH),
      hostedAgentId: null,
      mayApprove: client.scopes.includes('approve'),
      // A hash nothing hashes to: the key is used through its grant's tokens, never presented itself.
      keyHash: newApiKey().hash,
      keyPrefix: 'oauth',
      oauth: { grantId: client.grantId, clientId: client.clientId, scopes: client.scopes },
    });
    await apiKeyEvent(tx, 'api_key.created', row, actor);
    return row;
  });
  if (replaced) ctx.apiKeys.forget(replaced.id);
  return key;
}

/**
 * Revokes the keys of grants the authorization server ended on its own (a refresh token used
 * twice, a revocation at /oauth/revoke, expiry), so the keys page shows them revoked and they free
 * their place under the cap: at once for the grant named (the provider's `grant.revoked`), and
 * for all of them in the hourly housekeeping.
 */
export async function revokeKeysOfEndedGrants(ctx: Pick<Context, 'db'>, grantId?: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    for (const key of await keysOfEndedGrants(tx, grantId)) {
      const revoked = await revokeApiKey(tx, key.userId, key.id);
      if (revoked) await apiKeyEvent(tx, 'api_key.revoked', revoked, null);
    }
  });
}
