// An owner answering an OAuth client's authorization request over HTTP, as the dashboard's
// Authorize page does it in a browser: signed in (the dev sign-in), they follow the authorization
// URL to the page, read the request and answer it, and the browser is sent back to the client.
// No vitest here: scripts/check-mcp-conformance.ts answers the conformance suite's request with it.
import { CookieJar } from './cookie-jar.ts';

export type ConsentAnswer = { allow: true; scopes: string[] } | { allow: false };

/** A new owner signed in with the dev sign-in: their browser's cookies. */
export async function signedInOwner(baseUrl: string, displayName: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const res = await jar.fetch(`${baseUrl}/auth/dev`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ display_name: displayName }),
  });
  if (res.status !== 303) throw new Error(`dev sign-in answered ${res.status}: ${await res.text()}`);
  return jar;
}

/** Follows redirects within the server (not to the client's redirect URI), with the jar's cookies. */
async function follow(baseUrl: string, jar: CookieJar, response: Response): Promise<Response> {
  let res = response;
  while (res.status >= 300 && res.status < 400) {
    const location = new URL(res.headers.get('location')!, baseUrl);
    if (location.origin !== new URL(baseUrl).origin) return res;
    res = await jar.fetch(location.toString());
  }
  return res;
}

async function expectStatus(res: Response, status: number, step: string): Promise<void> {
  if (res.status !== status) throw new Error(`${step}: expected ${status}, got ${res.status}: ${await res.text()}`);
}

/**
 * Follows `authorizationUrl` to the dashboard's Authorize page, reads the request and answers it.
 * Returns where the browser is sent back to: the client's redirect URI, with a code or an error.
 */
export async function answerAuthorization(baseUrl: string, jar: CookieJar, authorizationUrl: string, answer: ConsentAnswer): Promise<URL> {
  const started = await jar.fetch(authorizationUrl);
  await expectStatus(started, 303, 'the authorization request');
  const page = new URL(started.headers.get('location')!, baseUrl);
  const uid = /^#\/authorize\/([^/]+)$/.exec(page.hash)?.[1];
  if (!uid) throw new Error(`the authorization server sent the browser to ${page}, not the dashboard's Authorize page`);
  const read = await jar.fetch(`${baseUrl}/oauth/consent/${uid}`);
  await expectStatus(read, 200, 'reading the request');
  const asked = (await read.json()) as { scopes: { name: string }[] };
  if (!asked.scopes.some((s) => s.name === 'read')) throw new Error('the request does not show `read`, part of every grant');
  const posted = await jar.fetch(`${baseUrl}/oauth/consent/${uid}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify(answer.allow ? { decision: 'allow', scopes: answer.scopes } : { decision: 'deny', scopes: [] }),
  });
  await expectStatus(posted, 200, 'answering the request');
  const { redirect_to } = (await posted.json()) as { redirect_to: string };
  const back = await follow(baseUrl, jar, await jar.fetch(redirect_to));
  if (back.status < 300 || back.status >= 400)
    throw new Error(`the answer did not lead back to the client: ${back.status} ${await back.text()}`);
  return new URL(back.headers.get('location')!);
}
