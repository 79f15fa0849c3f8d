// An OAuth client's side of gigmarket's authorization server, over plain HTTP: PKCE, the
// authorization request, the owner's consent (a signed-in session's cookie jar posting the
// consent form, as the browser would), and the token endpoint. The browser test drives the same
// consent page in Chromium instead.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './server.ts';
import { CookieJar, SESSION_COOKIE, signInDev } from './session.ts';
import { answerAuthorization, type ConsentAnswer } from './owner-consent.ts';

export const b64url = (bytes: Buffer) => bytes.toString('base64url');

export function pkce() {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  resource: string;
  challenge?: string | undefined;
}

/** The server the client talks to (a test server, or a balancer in front of several). */
type Server = { url: string };

export function authorizationUrl(server: Server, request: AuthorizationRequest, state = 'st-1'): URL {
  const url = new URL('/oauth/authorize', server.url);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    resource: request.resource,
    state,
    ...(request.challenge ? { code_challenge: request.challenge, code_challenge_method: 'S256' } : {}),
  }).toString();
  return url;
}

/**
 * The owner (signed in, in `jar`) goes through the authorization request and answers it as the
 * dashboard's Authorize page does. Returns where the browser is sent back to.
 */
export function consent(server: Server, jar: CookieJar, request: AuthorizationRequest, answer: ConsentAnswer): Promise<URL> {
  return answerAuthorization(server.url, jar, authorizationUrl(server, request).toString(), answer);
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** A POST to the token endpoint; the answer's status and JSON. */
export async function tokenRequest(server: Server, form: Record<string, string>) {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Tokens & { error?: string; error_description?: string } };
}

/** Where the test clients say they are sent back to (nothing listens: the tests read the Location). */
export const REDIRECT = 'http://127.0.0.1:9/callback';

export type Owner = Awaited<ReturnType<ReturnType<typeof oauthFlows>['owner']>>;

/** The steps of a client's flow against one test server. */
export function oauthFlows(server: TestServer) {
  const resource = `${server.url}/mcp`;

  /** Dynamic Client Registration of a public client. */
  async function register(name = 'Test Agent') {
    const res = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: name,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { client_id: string; client_name: string };
  }

  /** A signed-in owner, with their session's cookie jar. */
  async function owner(name: string) {
    const session = await signInDev(server, { displayName: name });
    const jar = new CookieJar();
    jar.cookies.set(SESSION_COOKIE, session.cookie.slice(SESSION_COOKIE.length + 1));
    return { ...session, jar };
  }

  /** The token request for an authorization code. */
  const exchange = (clientId: string, code: string, verifier: string) =>
    tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    });

  /** Registration and consent for `scopes`: the code, not yet exchanged. */
  async function grantedCode(scopes: string[], who?: Owner) {
    const person = who ?? (await owner('Grant Owner'));
    const client = await register();
    const { verifier, challenge } = pkce();
    const request = { clientId: client.client_id, redirectUri: REDIRECT, scope: 'read draft approve money', resource, challenge };
    const back = await consent(server, person.jar, request, { allow: true, scopes });
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-1');
    return { person, client, back, code: back.searchParams.get('code')!, verifier };
  }

  /** Registration, consent for `scopes`, and the code exchanged: the client's tokens. */
  async function grantedTokens(scopes: string[], who?: Owner) {
    const granted = await grantedCode(scopes, who);
    const token = await exchange(granted.client.client_id, granted.code, granted.verifier);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    return { ...granted, tokens: token.body };
  }

  const refresh = (clientId: string, refreshToken: string) =>
    tokenRequest(server, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource });

  return { register, owner, exchange, grantedCode, grantedTokens, refresh };
}
