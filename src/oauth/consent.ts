// The owner's consent to an OAuth client, where the authorization server sends the browser
// (interactions.url): signed in to gigmarket (else sign in first and come back), the owner sees
// which client asks for which scopes, for which resource and where it will be sent back, chooses
// the scopes to grant, and allows or refuses. Allowing records the grant and its key
// (src/services/oauth-grants.ts); the provider then sends the browser back to the client.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { escapeHtml, sendPage } from '../auth/html.ts';
import { assertSameOrigin, currentSession, rememberReturnPath } from '../auth/session-cookie.ts';
import { userActor } from '../actor.ts';
import { getUser } from '../../db/repositories/users.ts';
import { keyForGrant } from '../services/oauth-grants.ts';
import { ApiError } from '../errors.ts';
import { asPublicRequest, CONSENT_PATH, mcpResource, type OAuthProvider } from './provider.ts';
import { OAUTH_SCOPES, parseScopes, SCOPE_NAMES, type OAuthScope } from './scopes.ts';

type Interaction = Awaited<ReturnType<OAuthProvider['interactionDetails']>>;

async function interactionOf(
  provider: OAuthProvider,
  publicUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Interaction | undefined> {
  try {
    return await provider.interactionDetails(asPublicRequest(request.raw, publicUrl), reply.raw);
  } catch {
    return undefined; // expired, finished, or this browser did not start it
  }
}

function expiredPage(reply: FastifyReply) {
  return sendPage(
    reply,
    'Authorization expired · gigmarket',
    () => `<h1>This authorization request has expired</h1>
<p>Go back to the application that sent you here and connect again.</p>`,
    400,
  );
}

function signInPage(reply: FastifyReply) {
  return sendPage(
    reply,
    'Sign in · gigmarket',
    () => `<h1>Sign in to continue</h1>
<p>An application asks to act for you at gigmarket. Sign in first; you will come back here to decide.</p>
<p><a href="/">Sign in</a></p>`,
  );
}

/** What the client asks for, with `read` (part of every grant); a request naming no scope asks for `read` alone. */
function askedScopes(interaction: Interaction): OAuthScope[] {
  return parseScopes(`${String(interaction.params.scope ?? '')} read`);
}

/** The scopes asked for, each to tick; `read` comes with any grant, so it is shown without a box. */
function scopeList(requested: OAuthScope[]): string {
  return SCOPE_NAMES.filter((s) => requested.includes(s))
    .map((s) =>
      s === 'read'
        ? `<li><code>read</code> (always): ${escapeHtml(OAUTH_SCOPES.read)}</li>`
        : `<li><label><input type="checkbox" name="scope_${s}" checked> <code>${s}</code>: ${escapeHtml(OAUTH_SCOPES[s])}</label></li>`,
    )
    .join('');
}

async function consentPage(provider: OAuthProvider, reply: FastifyReply, interaction: Interaction, displayName: string) {
  const clientId = String(interaction.params.client_id);
  const client = await provider.Client.find(clientId);
  const name = client?.clientName ?? clientId;
  const requested = askedScopes(interaction);
  const redirect = URL.parse(String(interaction.params.redirect_uri ?? ''));
  // The form's answer ends in a redirect to the client: the page's form-action must allow it.
  const web = redirect?.protocol === 'http:' || redirect?.protocol === 'https:';
  const target = redirect ? (web ? redirect.origin : redirect.protocol) : undefined;
  // An app's own scheme (cursor://…) has no origin: the owner sees where, without the query.
  const backTo = redirect ? (web ? redirect.origin : `${redirect.protocol}//${redirect.host}${redirect.pathname}`) : '?';
  return sendPage(
    reply,
    'Allow access · gigmarket',
    () => `<h1><q>${escapeHtml(name)}</q> asks to act for you</h1>
<p class="muted">Signed in as ${escapeHtml(displayName)}. Client id: <code>${escapeHtml(clientId)}</code>${
      client?.clientUri ? `, from <code>${escapeHtml(client.clientUri)}</code>` : ''
    }. After you decide, you go back to <code>${escapeHtml(backTo)}</code>.</p>
<form method="post" action="${CONSENT_PATH}/${escapeHtml(interaction.uid)}">
  <p>It would act at gigmarket's MCP endpoint as you, with what you tick:</p>
  <ul>${scopeList(requested)}</ul>
  <p class="muted">It never approves a contract on its own: your approval policy applies to it as to your API keys.
  You can revoke it at any time on the API keys page.</p>
  <button type="submit" name="decision" value="allow">Allow</button>
  <button type="submit" name="decision" value="deny">Refuse</button>
</form>`,
    200,
    target ? [target] : [],
  );
}

export function registerConsent(app: FastifyInstance, ctx: Context, providerOf: () => Promise<OAuthProvider>): void {
  const resource = mcpResource(ctx.config.publicUrl);

  app.get(`${CONSENT_PATH}/:uid`, async (request: FastifyRequest<{ Params: { uid: string } }>, reply) => {
    const provider = await providerOf();
    const interaction = await interactionOf(provider, ctx.config.publicUrl, request, reply);
    if (!interaction || interaction.uid !== request.params.uid) return expiredPage(reply);
    const session = await currentSession(ctx, request);
    if (!session) {
      rememberReturnPath(ctx.config, reply, `${CONSENT_PATH}/${interaction.uid}`);
      return signInPage(reply);
    }
    const user = await getUser(ctx.db, session.userId);
    return consentPage(provider, reply, interaction, user?.displayName ?? session.userId);
  });

  app.post(
    `${CONSENT_PATH}/:uid`,
    async (request: FastifyRequest<{ Params: { uid: string }; Body: Record<string, string> | undefined }>, reply) => {
      assertSameOrigin(request, ctx.config.publicUrl);
      const provider = await providerOf();
      const interaction = await interactionOf(provider, ctx.config.publicUrl, request, reply);
      if (!interaction || interaction.uid !== request.params.uid) return expiredPage(reply);
      const session = await currentSession(ctx, request);
      if (!session) return signInPage(reply);
      const body = request.body ?? {};
      const requested = askedScopes(interaction);
      const chosen = requested.filter((s) => s === 'read' || body[`scope_${s}`] === 'on');
      const finish = (result: Parameters<OAuthProvider['interactionFinished']>[2]) => {
        reply.hijack();
        return provider.interactionFinished(asPublicRequest(request.raw, ctx.config.publicUrl), reply.raw, result, {
          mergeWithLastSubmission: false,
        });
      };
      if (body.decision !== 'allow') return finish({ error: 'access_denied', error_description: 'the owner refused the request' });
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
        // The client hears why (at the cap of keys and grants, say); it must not wait for an answer that never comes.
        if (err instanceof ApiError && err.status < 500) return finish({ error: 'access_denied', error_description: err.message });
        throw err;
      }
      return finish({ login: { accountId: session.userId }, consent: { grantId } });
    },
  );
}
