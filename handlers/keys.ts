import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { ApiError } from '../src/errors.ts';

export function keyHandlers(_ctx: AppContext): Handlers<'verifyApiKey'> {
  return {
    async verifyApiKey(request) {
      const principal = principalOf(request);
      if (principal.kind !== 'api_key') throw new ApiError('FORBIDDEN', 'only an API key can be verified');
      return { user_id: principal.userId, hosted_agent_id: principal.hostedAgentId, api_key_id: principal.apiKeyId };
    },
  };
}
