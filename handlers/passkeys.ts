// Passkeys: registered, listed and removed by their owner in a browser session, and the challenge
// for approving a contract with one. The rules live in src/services/passkeys.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import * as passkeys from '../src/services/passkeys.ts';
import { presentPasskey } from '../src/presenters/passkeys.ts';

export function passkeyHandlers(): Handlers<
  'listPasskeys' | 'createPasskeyRegistrationOptions' | 'registerPasskey' | 'deletePasskey' | 'createApprovalChallenge'
> {
  return {
    async listPasskeys(request, _reply, { ctx }) {
      return { data: (await passkeys.listPasskeys(ctx, actorOf(request))).map(presentPasskey) };
    },

    async createPasskeyRegistrationOptions(request, _reply, { ctx }) {
      return { options: await passkeys.registrationOptions(ctx, actorOf(request)) };
    },

    async registerPasskey(request, reply, { ctx }) {
      const row = await passkeys.registerPasskey(ctx, actorOf(request), request.body.name, request.body.credential);
      reply.code(201);
      return presentPasskey(row);
    },

    async deletePasskey(request, reply, { ctx }) {
      await passkeys.removePasskey(ctx, actorOf(request), request.params.id);
      return reply.code(204).send();
    },

    async createApprovalChallenge(request, _reply, { ctx }) {
      return passkeys.approvalOptions(ctx, actorOf(request), request.params.id);
    },
  };
}
