// The owner's consent to an OAuth client, on the dashboard's Authorize page (`/#/authorize/{uid}`,
// where the authorization server sends the browser): signed in (the dashboard's sign-in brings
// them back to it), the owner sees which client asks for which scopes and where it will send them
// back, unticks what they do not grant, and allows or refuses. The page reads the request and
// answers it through these two JSON routes of the owner's session; allowing records the grant and
// its key (src/services/oauth-grants.ts), and the answer is where the page sends the browser next.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { assertSameOrigin, currentSession } from '../auth/session-cookie.ts';
import { userActor } from '../actor.ts';
import { keyForGrant } from '../services/oauth-grants.ts';
import { ApiError, notFound, unauthenticated } from '../errors.ts';
import { asPublicRequest, CONSENT_PATH, mcpResource, type OAuthProvider } from './provider.ts';
import { OAUTH_SCOPES, parseScopes, SCOPE_NAMES, type OAuthScope } from './scopes.ts';

type Interaction = Awaited<ReturnType<OAuthProvider['interactionDetails']>>;
type Result = Parameters<OAuthProvider['interactionResult']>[2];

interface Answer {
  decision: 'allow' | 'deny';
  /** The scopes the owner left ticked (`read` is part of every grant). */
  scopes: OAuthScope[];
}

const answerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['decision', 'scopes'],
  properties: {
    decision: { type: 'string', enum: ['allow', 'deny'] },
    scopes: { type: 'array', maxItems: SCOPE_NAMES.length, uniqueItems: true, items: { type: 'string', enum: SCOPE_NAMES } },
  },
};

/** What the client asks for, with `read` (part of every grant); a request naming no scope asks for `read` alone. */
function askedScopes(interaction: Interaction): OAuthScope[] {
  return parseScopes(`${String(interaction.params.scope ?? '')} read`);
}

/** Where the browser goes back to: an https origin, or an app's own scheme (cursor://…), without the query. */
function backTo(interaction: Interaction): string {
  const redirect = URL.parse(String(interaction.params.redirect_uri ?? ''));
  if (!redirect) return '';
  const web = redirect.protocol === 'http:' || redirect.protocol === 'https:';
  return web ? redirect.origin : `${redirect.protocol}//${redirect.host}${redirect.pathname}`;
}

export function registerConsent(app: FastifyInstance, ctx: Context, providerOf: () => Promise<OAuthProvider>): void {
  const { publicUrl } = ctx.config;
  const resource = mcpResource(publicUrl);

  /** The signed-in owner and the request this browser started, or the error the page shows. */
  async function pending(request: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply) {
    const session = await currentSession(ctx, request);
    if (!session) throw unauthenticated('sign in to answer an authorization request');
    const provider = await providerOf();
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(asPublicRequest(request.raw, publicUrl), reply.raw);
    } catch {
      throw notFound('authorization request (it expired, was answered, or was started in another browser)');
    }
    if (interaction.uid !== request.params.uid) throw notFound('authorization request');
    return { session, provider, interaction };
  }

  app.get(`${CONSENT_PATH}/:uid`, async (request: FastifyRequest<{ Params: { uid: string } }>, reply) => {
    const { provider, interaction } = await pending(request, reply);
    const clientId = String(interaction.params.client_id);
    const client = await provider.Client.find(clientId);
    reply.header('cache-control', 'no-store');
    return {
      uid: interaction.uid,
      client: { id: clientId, name: client?.clientName ?? null, uri: client?.clientUri ?? null },
      back_to: backTo(interaction),
      scopes: askedScopes(interaction).map((name) => ({ name, description: OAUTH_SCOPES[name] })),
    };
  });

  app.post(
    `${CONSENT_PATH}/:uid`,
    { schema: { body: answerSchema } },
    async (request: FastifyRequest<{ Params: { uid: string }; Body: Answer }>, reply) => {
      assertSameOrigin(request, publicUrl);
      const { session, provider, interaction } = await pending(request, reply);
      const answer = async (result: Result) => {
        reply.header('cache-control', 'no-store');
        const redirectTo = await provider.interactionResult(asPublicRequest(request.raw, publicUrl), reply.raw, result, {
          mergeWithLastSubmission: false,
        });
        return { redirect_to: redirectTo };
      };
      if (request.body.decision === 'deny') return answer({ error: 'access_denied', error_description: 'the owner refused the request' });

      const requested = askedScopes(interaction);
      const chosen = requested.filter((s) => s === 'read' || request.body.scopes.includes(s));
      const clientId = String(interaction.params.client_id);
      const client = await provider.Client.find(clientId);
      const grant = new provider.Grant({ accountId: session.userId, clientId });
      // The provider counts the scopes it advertises as scopes of the grant itself too: both are recorded.
      grant.addOIDCScope(chosen.join(' '));
      grant.addResourceScope(resource, chosen.join(' '));
      // Scopes left unticked are refused, not asked again: the client gets what was granted.
      const refused = requested.filter((s) => !chosen.includes(s)).join(' ');
      if (refused) {
        grant.rejectOIDCScope(refused);
        grant.rejectResourceScope(resource, refused);
      }
      const grantId = await grant.save();
      try {
        await keyForGrant(ctx, userActor(session.userId), {
          grantId,
          clientId,
          clientName: client?.clientName ?? clientId,
          scopes: chosen,
        });
      } catch (err) {
        await grant.destroy();
        // The client hears why (at the cap of keys and grants, say): it must not wait for an answer that never comes.
        if (err instanceof ApiError && err.status < 500) return answer({ error: 'access_denied', error_description: err.message });
        throw err;
      }
      return answer({ login: { accountId: session.userId }, consent: { grantId } });
    },
  );
}
