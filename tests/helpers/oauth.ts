// An OAuth client's side of gigmarket's authorization server, over plain HTTP: PKCE, the
// authorization request, the owner's consent (a signed-in session's cookie jar posting the
// consent form, as the browser would), and the token endpoint. The browser test drives the same
// consent page in Chromium instead.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { CookieJar } from './session.ts';

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

/** Follows redirects within the server (not to the client's redirect URI), with the jar's cookies. */
async function follow(server: Server, jar: CookieJar, response: Response): Promise<Response> {
  let res = response;
  while (res.status >= 300 && res.status < 400) {
    const location = new URL(res.headers.get('location')!, server.url);
    if (location.origin !== new URL(server.url).origin) return res;
    res = await jar.fetch(location.toString());
  }
  return res;
}

/**
 * The owner (signed in, in `jar`) goes through the authorization request and answers the consent
 * page: `allow` with the scopes ticked, or refuse. Returns where the browser is sent back to.
 */
export async function consent(
  server: Server,
  jar: CookieJar,
  request: AuthorizationRequest,
  answer: { allow: true; scopes: string[] } | { allow: false },
): Promise<URL> {
  const page = await follow(server, jar, await jar.fetch(authorizationUrl(server, request).toString()));
  expect(page.status, await page.clone().text()).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no consent form in: ${html.slice(0, 500)}`);
  const form = new URLSearchParams({ decision: answer.allow ? 'allow' : 'deny' });
  if (answer.allow) for (const s of answer.scopes) form.set(`scope_${s}`, 'on');
  const posted = await jar.fetch(new URL(action, server.url).toString(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
    body: form.toString(),
  });
  const back = await follow(server, jar, posted);
  expect(back.status, await back.clone().text()).toBeGreaterThanOrEqual(300);
  expect(back.status).toBeLessThan(400);
  return new URL(back.headers.get('location')!);
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
