// Browser sessions for tests: sign in through the dev sign-in over HTTP (a default test server has
// no GitHub client, so /auth/dev exists), or through GitHub's flow against tests/fakes/github.ts,
// and get a spec-checked client that sends the cookie.
import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import type { ApiClient, TestServer } from './server.ts';
import { specValidation } from './spec-validator.ts';
import { CookieJar, SESSION_COOKIE } from './cookie-jar.ts';

export { CookieJar, SESSION_COOKIE } from './cookie-jar.ts';

/** Follows the GitHub flow from /auth/github to our callback; returns the callback's response. */
export async function githubSignIn(server: TestServer, jar: CookieJar, tamper?: (callback: URL) => void) {
  const start = await jar.fetch(`${server.url}/auth/github`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  const approved = await jar.fetch(authorize.toString());
  expect(approved.status).toBe(302);
  const callback = new URL(approved.headers.get('location')!);
  tamper?.(callback);
  return { authorize, callback, response: await jar.fetch(callback.toString()) };
}

/** A spec-checked client that sends this Cookie header (and any extra headers). */
export function cookieClient(server: TestServer, cookie: string, headers: Record<string, string> = {}): ApiClient {
  const client = createClient<paths>({ baseUrl: server.url, headers: { cookie, ...headers } });
  client.use(specValidation);
  return client;
}

export interface BrowserSession {
  userId: string;
  /** The Cookie header value, e.g. `gm_session=...`. */
  cookie: string;
  /** A spec-checked client that sends the session cookie. */
  api: ApiClient;
}

/**
 * Signs in with the dev sign-in: `{ displayName }` creates a new user, `{ userId }` signs in as an
 * existing one (e.g. one from `server.user()`).
 */
export async function signInDev(
  server: TestServer,
  who: { displayName: string } | { userId: string } = { displayName: 'Session User' },
): Promise<BrowserSession> {
  const jar = new CookieJar();
  const body = 'userId' in who ? { user_id: who.userId } : { display_name: who.displayName };
  const res = await jar.fetch(`${server.url}/auth/dev`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 303) throw new Error(`dev sign-in answered ${res.status}: ${await res.text()}`);
  const value = jar.cookies.get(SESSION_COOKIE);
  if (!value) throw new Error('dev sign-in set no session cookie');
  const cookie = `${SESSION_COOKIE}=${value}`;
  const api = cookieClient(server, cookie);
  const me = await api.GET('/api/profile/me');
  if (!me.data) throw new Error(`GET /api/profile/me with the new session answered ${me.response.status}`);
  return { userId: me.data.user_id, cookie, api };
}
