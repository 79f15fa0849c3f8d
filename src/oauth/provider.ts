// gigmarket as the OAuth 2.1 authorization server for its own MCP endpoint (the MCP authorization
// specification): oidc-provider does the protocol (authorization code with PKCE S256, refresh
// tokens that rotate, Dynamic Client Registration, Client ID Metadata Documents, resource
// indicators, revocation, RFC 8414 metadata); we give it storage (our database), the owner's
// consent (the dashboard's Authorize page, src/oauth/consent.ts) and the one resource it issues tokens for: `${PUBLIC_URL}/mcp`.
// Access tokens are opaque, so /mcp checks each against the database and a revoked grant stops at
// once. Nothing is signed with the provider's keys (no ID tokens: no OpenID Connect), so each
// process makes its own key at start, only so that no well-known development key is ever served.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Context } from '../context.ts';
import { checkOutboundUrl, OutboundUrlError } from '../outbound/guard.ts';
import { revokeKeysOfEndedGrants } from '../services/oauth-grants.ts';
import { postgresAdapter } from './adapter.ts';
import { SCOPE_NAMES } from './scopes.ts';

export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/session/end',
  introspection: '/oauth/introspect',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  pushed_authorization_request: '/oauth/par',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The routes the dashboard's Authorize page reads and answers an authorization request through. */
export const CONSENT_PATH = '/oauth/consent';
/** The dashboard's Authorize page, where the provider sends the owner (signed out, the dashboard signs them in first). */
export const AUTHORIZE_PAGE = '/#/authorize';

const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 86_400;

/** The protected resource: the MCP endpoint, named as MCP clients name it (RFC 8707). */
export function mcpResource(publicUrl: string): string {
  return `${publicUrl}/mcp`;
}

/** Keys for the provider's own short-lived cookies, the same on every instance (from the session secret). */
function cookieKeys(sessionSecret: string): string[] {
  return [createHmac('sha256', sessionSecret).update('gigmarket oauth cookies').digest('base64url')];
}

/**
 * A client's metadata document is fetched from the URL that is its id: the same guard as
 * webhooks (no loopback or private networks, unless allowed for development), and the
 * provider's own refusal of special-use addresses stays on where we do not allow them.
 */
function guardedFetch(allowPrivate: boolean): NonNullable<Configuration['fetch']> {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    await checkOutboundUrl(url, { allowPrivate, requireHttps: true });
    const options = { ...init } as RequestInit & { dispatcher?: unknown };
    if (allowPrivate) delete options.dispatcher;
    return fetch(url, options);
  };
}

export async function createOAuthProvider(ctx: Context) {
  const [{ default: Provider, errors }, { exportJWK, generateKeyPair }] = await Promise.all([import('oidc-provider'), import('jose')]);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const { publicUrl, nodeEnv } = ctx.config;
  const resource = mcpResource(publicUrl);
  const secure = nodeEnv === 'production';
  const allowPrivate = ctx.config.oauthClientDocumentsAllowPrivateUrls;
  const configuration: Configuration = {
    adapter: postgresAdapter(ctx.db, errors.InvalidGrant),
    clients: [],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), use: 'sig', alg: 'ES256' }] },
    scopes: SCOPE_NAMES,
    // No OpenID Connect: the tokens are for /mcp, not sign-in to other sites.
    claims: {},
    responseTypes: ['code'],
    pkce: { required: () => true },
    routes: OAUTH_PATHS,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: async (_ctx, clientId) => {
          try {
            await checkOutboundUrl(clientId, { allowPrivate, requireHttps: true });
            return true;
          } catch (err) {
            if (err instanceof OutboundUrlError) return false;
            throw err;
          }
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
          return { scope: SCOPE_NAMES.join(' '), audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
        },
      },
    },
    // Every authorization asks the owner (src/oauth/consent.ts); the grant loaded is the one just consented to.
    interactions: { url: (_ctx, interaction) => `${AUTHORIZE_PAGE}/${interaction.uid}` },
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every refresh returns a new refresh token; the old one used again revokes the grant.
    rotateRefreshToken: () => true,
    // A token revoked at /oauth/revoke ends its grant (the provider would otherwise end every token
    // of it but keep the grant, leaving a key on the keys page that nothing can use).
    revokeGrantPolicy: () => true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: 365 * 86_400,
      Interaction: 600,
      Session: 600,
    },
    cookies: {
      keys: cookieKeys(ctx.sessionSecret),
      long: { httpOnly: true, sameSite: 'lax', secure, signed: true },
      short: { httpOnly: true, sameSite: 'lax', secure, signed: true },
    },
    // MCP clients in a browser (the Inspector) call the token endpoint cross-origin.
    clientBasedCORS: () => true,
    fetch: guardedFetch(allowPrivate),
    renderError: (koa, out) => {
      koa.type = 'application/json';
      koa.body = { error: out.error, error_description: out.error_description };
    },
  };
  const provider = new Provider(publicUrl, configuration);
  // It reads its own address from the forwarding headers, which asPublicRequest sets from PUBLIC_URL.
  provider.proxy = true;
  // A grant it ended (a refresh token used twice, a revocation at its endpoint): its key goes too.
  provider.on('grant.revoked', (_koa, grantId: string) => {
    revokeKeysOfEndedGrants(ctx, grantId).catch((err) => ctx.log.error({ err, grantId }, 'could not revoke the key of an ended grant'));
  });
  return provider;
}

/**
 * The provider builds its metadata, redirects and cookies from the request's address: it is told
 * PUBLIC_URL's, whatever the Host header or a proxy's X-Forwarded-* headers say (a client could
 * send its own, and behind a TLS proxy the connection itself is plain HTTP).
 */
export function asPublicRequest(raw: IncomingMessage, publicUrl: string): IncomingMessage {
  const url = new URL(publicUrl);
  raw.headers['x-forwarded-host'] = url.host;
  raw.headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  return raw;
}

export type OAuthProvider = Awaited<ReturnType<typeof createOAuthProvider>>;
