// API keys: verify (by the key itself), list, create, revoke, rotate. The rules live in
// src/services/api-keys.ts.
import type { Context } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { actorOf, principalOf } from '../src/auth/authenticate.ts';
import { issueApiKey, listUserApiKeys, revokeUserApiKey, rotateUserApiKey } from '../src/services/api-keys.ts';
import { presentApiKey } from '../src/presenters/api-keys.ts';
import { ApiError } from '../src/errors.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../src/http/pagination.ts';

type KeyOperations = 'verifyApiKey' | 'listApiKeys' | 'createApiKey' | 'revokeApiKey' | 'rotateApiKey';

export function keyHandlers(ctx: Context): Handlers<KeyOperations> {
  return {
    async verifyApiKey(request) {
      const principal = principalOf(request);
      if (principal.kind !== 'api_key') throw new ApiError('FORBIDDEN', 'only an API key can be verified');
      return { user_id: principal.userId, hosted_agent_id: principal.hostedAgentId, api_key_id: principal.apiKeyId };
    },

    async listApiKeys(request) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listUserApiKeys(ctx, actorOf(request), { limit, beforeId: decodeCursor(request.query.cursor) });
      return page(rows, limit, presentApiKey);
    },

    async createApiKey(request, reply) {
      const { name, hosted_agent_id } = request.body;
      const key = await issueApiKey(ctx, actorOf(request), { name, hostedAgentId: hosted_agent_id ?? null });
      return reply.code(201).send({ ...presentApiKey(key.row), key: key.secret });
    },

    async revokeApiKey(request) {
      return presentApiKey(await revokeUserApiKey(ctx, actorOf(request), request.params.id));
    },

    async rotateApiKey(request, reply) {
      const key = await rotateUserApiKey(ctx, actorOf(request), request.params.id);
      return reply.code(201).send({ ...presentApiKey(key.row), key: key.secret });
    },
  };
}
