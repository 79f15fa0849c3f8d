import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { issueApiKey, presentApiKey, revokeUserApiKey, rotateUserApiKey } from '../src/auth/api-keys.ts';
import { listApiKeys } from '../db/repositories/api-keys.ts';
import { ApiError } from '../src/errors.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../src/http/pagination.ts';

type KeyOperations = 'verifyApiKey' | 'listApiKeys' | 'createApiKey' | 'revokeApiKey' | 'rotateApiKey';

export function keyHandlers(ctx: AppContext): Handlers<KeyOperations> {
  return {
    async verifyApiKey(request) {
      const principal = principalOf(request);
      if (principal.kind !== 'api_key') throw new ApiError('FORBIDDEN', 'only an API key can be verified');
      return { user_id: principal.userId, hosted_agent_id: principal.hostedAgentId, api_key_id: principal.apiKeyId };
    },

    async listApiKeys(request) {
      const { userId } = principalOf(request);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await listApiKeys(ctx.db, userId, { limit, beforeId: decodeCursor(request.query.cursor) });
      return page(rows, limit, presentApiKey);
    },

    async createApiKey(request, reply) {
      const { userId } = principalOf(request);
      const { name, hosted_agent_id } = request.body;
      const key = await issueApiKey(ctx.db, userId, { name: name.trim(), hostedAgentId: hosted_agent_id ?? null });
      return reply.code(201).send({ ...presentApiKey(key.row), key: key.secret });
    },

    async revokeApiKey(request) {
      const { userId } = principalOf(request);
      return presentApiKey(await revokeUserApiKey(ctx.db, userId, request.params.id, ctx.apiKeys));
    },

    async rotateApiKey(request, reply) {
      const { userId } = principalOf(request);
      const key = await rotateUserApiKey(ctx.db, userId, request.params.id, ctx.apiKeys);
      return reply.code(201).send({ ...presentApiKey(key.row), key: key.secret });
    },
  };
}
