// API keys: verify (by the key itself), list, create, revoke, rotate. The rules live in
// src/services/api-keys.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf, principalOf } from '../src/auth/authenticate.ts';
import { issueApiKey, listUserApiKeys, revokeUserApiKey, rotateUserApiKey } from '../src/services/api-keys.ts';
import { presentApiKey } from '../src/presenters/api-keys.ts';
import { ApiError } from '../src/errors.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../src/http/pagination.ts';

type KeyOperations = 'verifyApiKey' | 'listApiKeys' | 'createApiKey' | 'revokeApiKey' | 'rotateApiKey';

export function keyHandlers(): Handlers<KeyOperations> {
  return {
    async verifyApiKey(request) {
      const principal = principalOf(request);
      if (principal.kind !== 'api_key') throw new ApiError('FORBIDDEN', 'only an API key can be verified');
      return { user_id: principal.userId, hosted_agent_id: principal.hostedAgentId, api_key_id: principal.apiKeyId };
    },

    async listApiKeys(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listUserApiKeys(ctx, actorOf(request), { limit, beforeId: decodeCursor(request.query.cursor) });
      return page(rows, limit, presentApiKey);
    },

    async createApiKey(request, reply, { ctx }) {
      const { name, hosted_agent_id, may_approve } = request.body;
      const key = await issueApiKey(ctx, actorOf(request), {
        name,
        hostedAgentId: hosted_agent_id ?? null,
        mayApprove: may_approve ?? true,
      });
      reply.code(201);
      return newKeyView(key);
    },

    async revokeApiKey(request, _reply, { ctx }) {
      return presentApiKey(await revokeUserApiKey(ctx, actorOf(request), request.params.id));
    },

    async rotateApiKey(request, reply, { ctx }) {
      const key = await rotateUserApiKey(ctx, actorOf(request), request.params.id);
      reply.code(201);
      return newKeyView(key);
    },
  };
}

/** A key just made: shown with its secret, this once; never used, revoked or replaced yet. */
function newKeyView(key: { row: Parameters<typeof presentApiKey>[0]; secret: string }) {
  return {
    ...presentApiKey(key.row),
    last_used_at: null,
    revoked_at: null,
    replaced_by_id: null,
    oauth_client_id: null,
    scopes: null,
    key: key.secret,
  };
}
