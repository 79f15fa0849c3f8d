// Browser sign-in over real HTTP: GitHub OAuth against a local fake GitHub (manual redirects, a
// cookie jar), the dev sign-in, sign-out, and what the dashboard's signed-out page offers
// (/auth/methods). The dashboard itself runs in a browser: tests/dashboard/dashboard.test.ts.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CookieJar, SESSION_COOKIE, cookieClient, githubSignIn, signInDev } from '../helpers/session.ts';
import { startFakeGithub, type FakeGithub } from '../fakes/github.ts';
import { sessions, users } from '../../db/schema.ts';
import { loadConfig } from '../../src/config.ts';

/**
 * A request to /auth/dev written on the socket as given (fetch sets Host itself and speaks only
 * HTTP/1.1): `body` is a form post.
 */
function rawHttp(
  server: TestServer,
  request: { method: 'GET' | 'POST'; version?: '1.0' | '1.1'; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; setsSession: boolean }> {
  const { port } = new URL(server.url);
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...request.headers };
  if (request.body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(request.body));
  }
  const head = [`${request.method} /auth/dev HTTP/${request.version ?? '1.1'}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed socket may lose a response still being made. `Connection: close` ends it.
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\n\r\n${request.body ?? ''}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [headPart = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headPart)?.[1]);
      const setsSession = new RegExp(`^set-cookie: ${SESSION_COOKIE}=[^;]+`, 'im').test(headPart);
      const raw = rest.join('\r\n\r\n');
      resolve({ status, body: /^transfer-encoding: chunked/im.test(headPart) ? unchunked(raw) : raw, setsSession });
    });
  });
}

/** The body of a chunked response, joined. */
function unchunked(raw: string): string {
  let out = '';
  let rest = raw;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

const sessionCookie = (jar: CookieJar) => `${SESSION_COOKIE}=${jar.cookies.get(SESSION_COOKIE)}`;

/** The sign-ins the dashboard's signed-out page offers on this server. */
async function signInMethods(server: TestServer): Promise<{ github: boolean; dev: boolean }> {
  const res = await fetch(`${server.url}/auth/methods`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.json();
}

describe('GitHub sign-in', () => {
  let fake: FakeGithub;
  let server: TestServer;
  beforeAll(async () => {
    fake = await startFakeGithub();
    server = await startTestServer(fake.env);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  it('runs the whole redirect flow: a user is created with the GitHub login linked, and a session cookie set', async () => {
    fake.signInAs({ id: 1001, login: 'ada-gh', name: 'Ada Lovelace' });
    const jar = new CookieJar();
    const { authorize, callback, response } = await githubSignIn(server, jar);

    // The authorize redirect carries our client id, a state, and a callback under PUBLIC_URL.
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(fake.clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${server.url}/auth/github/callback`);
    expect(authorize.searchParams.get('state')).toMatch(/.{16,}/);
    expect(callback.searchParams.get('state')).toBe(authorize.searchParams.get('state'));

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/');
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Secure/i);

    // The token request followed GitHub's protocol.
    const tokenRequest = fake.requests.find((r) => r.path === '/login/oauth/access_token')!;
    expect(tokenRequest.headers.accept).toContain('application/json');
    expect(tokenRequest.body).toMatchObject({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      redirect_uri: `${server.url}/auth/github/callback`,
    });

    const me = await cookieClient(server, sessionCookie(jar)).GET('/api/profile/me');
    expect(me.response.status).toBe(200);
    expect(me.data).toMatchObject({ display_name: 'Ada Lovelace', github_login: 'ada-gh' });
    const [row] = await server.db.select().from(users).where(eq(users.githubId, 1001));
    expect(row).toMatchObject({ id: me.data!.user_id, githubLogin: 'ada-gh' });
    const live = await server.db.select().from(sessions).where(eq(sessions.userId, row!.id));
    expect(live).toHaveLength(1);
    expect(live[0]!.revokedAt).toBeNull();

    // The public profile links the GitHub account.
    const other = await server.user('Viewer');
    const profile = await other.api.GET('/api/profile/{userId}', { params: { path: { userId: row!.id } } });
    expect(profile.data!.github).toEqual({ login: 'ada-gh', url: 'https://github.com/ada-gh' });

    // The dashboard's page loads for the signed-in browser (it greets the user from /api/profile/me).
    const page = await jar.fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });

  it('reuses the user on a second sign-in and follows a renamed login, keeping a chosen display name', async () => {
    fake.signInAs({ id: 2002, login: 'grace', name: 'Grace Hopper' });
    const first = new CookieJar();
    await githubSignIn(server, first);
    const me1 = await cookieClient(server, sessionCookie(first)).GET('/api/profile/me');
    await cookieClient(server, sessionCookie(first)).PATCH('/api/profile/me', { body: { display_name: 'Amazing Grace' } });

    fake.signInAs({ id: 2002, login: 'grace-renamed', name: 'Grace Hopper' });
    const second = new CookieJar();
    await githubSignIn(server, second);
    const me2 = await cookieClient(server, sessionCookie(second)).GET('/api/profile/me');
    expect(me2.data!.user_id).toBe(me1.data!.user_id);
    expect(me2.data).toMatchObject({ github_login: 'grace-renamed', display_name: 'Amazing Grace' });
    expect(await server.db.select().from(users).where(eq(users.githubId, 2002))).toHaveLength(1);
    // Two browsers, two sessions; both work.
    expect((await cookieClient(server, sessionCookie(first)).GET('/api/profile/me')).response.status).toBe(200);
  });

  it('falls back to the login when the GitHub account has no name', async () => {
    fake.signInAs({ id: 3003, login: 'nameless', name: null });
    const jar = new CookieJar();
    await githubSignIn(server, jar);
    const me = await cookieClient(server, sessionCookie(jar)).GET('/api/profile/me');
    expect(me.data).toMatchObject({ display_name: 'nameless', github_login: 'nameless' });
  });

  it('refuses a callback whose state does not match, and signs nobody in', async () => {
    fake.signInAs({ id: 4004, login: 'csrf-victim', name: null });
    const jar = new CookieJar();
    const { response } = await githubSignIn(server, jar, (callback) => callback.searchParams.set('state', 'forged-state-value'));
    expect(response.status).toBe(403);
    expect((await response.json()).error.code).toBe('FORBIDDEN');
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(await server.db.select().from(users).where(eq(users.githubId, 4004))).toEqual([]);
  });

  it('refuses a callback from a browser that did not start the flow (no state cookie)', async () => {
    const starter = new CookieJar();
    const start = await starter.fetch(`${server.url}/auth/github`);
    const approved = await starter.fetch(start.headers.get('location')!);
    const stranger = new CookieJar();
    const response = await stranger.fetch(approved.headers.get('location')!);
    expect(response.status).toBe(403);
    expect(stranger.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('refuses a code GitHub does not accept (replayed), and a declined authorization', async () => {
    const jar = new CookieJar();
    const { callback } = await githubSignIn(server, jar);
    // A new flow in the same browser, answered with the already-used code.
    const replay = new CookieJar();
    const start = await replay.fetch(`${server.url}/auth/github`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    callback.searchParams.set('state', state);
    const replayed = await replay.fetch(callback.toString());
    expect(replayed.status).toBe(401);
    expect((await replayed.json()).error.message).toContain('bad_verification_code');
    expect(replay.cookies.has(SESSION_COOKIE)).toBe(false);

    fake.denyNext();
    const declined = new CookieJar();
    const { response } = await githubSignIn(server, declined);
    expect(response.status).toBe(401);
    expect((await response.json()).error.message).toContain('access_denied');
    expect(declined.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('signs out: the session row is revoked and the cookie stops working', async () => {
    fake.signInAs({ id: 5005, login: 'leaver', name: 'Leaver' });
    const jar = new CookieJar();
    await githubSignIn(server, jar);
    const cookie = sessionCookie(jar);
    const api = cookieClient(server, cookie);
    const me = await api.GET('/api/profile/me');
    expect(me.response.status).toBe(200);

    // Not from another site.
    const forged = await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example' },
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect((await api.GET('/api/profile/me')).response.status).toBe(200);

    const out = await jar.fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/');
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);

    const after = await api.GET('/api/profile/me');
    expect(after.response.status).toBe(401);
    expect(after.error!.error.code).toBe('UNAUTHENTICATED');
    const rows = await server.db.select().from(sessions).where(eq(sessions.userId, me.data!.user_id));
    expect(rows.every((s) => s.revokedAt !== null)).toBe(true);
    // The dashboard, which reads /api/profile/me (401 above), shows the old cookie the sign-in: GitHub here.
    expect(await signInMethods(server)).toEqual({ github: true, dev: false });
  });

  it('has no dev sign-in when a GitHub client is configured', async () => {
    const get = await fetch(`${server.url}/auth/dev`);
    expect(get.status).toBe(404);
    expect((await get.json()).error.code).toBe('NOT_FOUND');
    const post = await fetch(`${server.url}/auth/dev`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Intruder' }),
    });
    expect(post.status).toBe(404);
    expect(await server.db.select().from(users).where(eq(users.displayName, 'Intruder'))).toEqual([]);
    expect(await signInMethods(server)).toEqual({ github: true, dev: false });
  });
});

describe('in production', () => {
  let fake: FakeGithub;
  beforeAll(async () => {
    fake = await startFakeGithub();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('names the session cookie __Host-gm_session (Secure, path /, no Domain) and takes no other name', async () => {
    const server = await startTestServer({ ...fake.env, NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-enough-length' });
    try {
      const jar = new CookieJar();
      const start = await jar.fetch(`${server.url}/auth/github`);
      const approved = await jar.fetch(start.headers.get('location')!);
      const done = await jar.fetch(approved.headers.get('location')!);
      const set = done.headers.getSetCookie().find((c) => c.startsWith('__Host-gm_session='))!;
      expect(set).toMatch(/; Path=\/(;|$)/);
      expect(set).toMatch(/Secure/i);
      expect(set).not.toMatch(/Domain=/i);
      expect(done.headers.getSetCookie().some((c) => c.startsWith('gm_session='))).toBe(false);
      const value = jar.cookies.get('__Host-gm_session')!;
      const keysWith = (cookie: string) => fetch(`${server.url}/api/keys`, { headers: { cookie } });
      expect((await keysWith(`__Host-gm_session=${value}`)).status).toBe(200);
      // The same signed token under the unprefixed name is no session here.
      expect((await keysWith(`gm_session=${value}`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('marks the session and state cookies Secure', async () => {
    const server = await startTestServer({ ...fake.env, NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-enough-length' });
    try {
      const jar = new CookieJar();
      const start = await jar.fetch(`${server.url}/auth/github`);
      const stateCookie = start.headers.getSetCookie()[0]!;
      expect(stateCookie).toMatch(/^__Host-/);
      expect(stateCookie).toMatch(/Secure/i);
      const approved = await jar.fetch(start.headers.get('location')!);
      const done = await jar.fetch(approved.headers.get('location')!);
      expect(done.status).toBe(302);
      const session = done.headers.getSetCookie().find((c) => c.startsWith('__Host-gm_session='))!;
      expect(session).toMatch(/Secure/i);
      expect(session).toMatch(/HttpOnly/i);
    } finally {
      await server.close();
    }
  });

  it('has no dev sign-in even without a GitHub client', async () => {
    const server = await startTestServer({ NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-enough-length' });
    try {
      expect((await fetch(`${server.url}/auth/dev`)).status).toBe(404);
      const post = await fetch(`${server.url}/auth/dev`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"display_name":"x"}',
      });
      expect(post.status).toBe(404);
      expect((await fetch(`${server.url}/auth/github`, { redirect: 'manual' })).status).toBe(404);
      // The dashboard then says that no browser sign-in is configured.
      expect(await signInMethods(server)).toEqual({ github: false, dev: false });
    } finally {
      await server.close();
    }
  });
});

describe('dev sign-in (no GitHub client, not production)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves a form that lists existing users', async () => {
    const existing = await server.user('Listed <User>');
    const res = await fetch(`${server.url}/auth/dev`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('name="display_name"');
    expect(html).toContain(existing.userId);
    expect(html).toContain('Listed &lt;User&gt;'); // escaped
    expect(html).not.toContain('Listed <User>');
  });

  it('creates a user from a submitted form and signs them in', async () => {
    const jar = new CookieJar();
    const res = await jar.fetch(`${server.url}/auth/dev`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ display_name: ' Form User ' }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const me = await cookieClient(server, sessionCookie(jar)).GET('/api/profile/me');
    expect(me.data).toMatchObject({ display_name: 'Form User', github_login: null });
    const page = await jar.fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('signs in as an existing user (e.g. one the CLI made)', async () => {
    const cliUser = await server.user('CLI Made');
    const session = await signInDev(server, { userId: cliUser.userId });
    expect(session.userId).toBe(cliUser.userId);
    const created = await session.api.POST('/api/keys', { body: { name: 'from the browser' } });
    expect(created.response.status).toBe(201);
  });

  it('rejects bad input: neither or both fields, a bad id, an unknown user', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/auth/dev`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        redirect: 'manual',
      });
    const cases: [unknown, number, string | undefined][] = [
      [{}, 400, 'body.display_name'],
      [{ display_name: 'A', user_id: '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' }, 400, 'body.display_name'],
      [{ display_name: '   ' }, 400, 'body.display_name'],
      [{ display_name: 'Nul\u0000Name' }, 400, 'body.display_name'],
      [{ user_id: 'nope' }, 400, 'body.user_id'],
      [{ user_id: 'urn:uuid:0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' }, 400, 'body.user_id'],
      [{ admin: true }, 400, 'body.admin'],
      [{ user_id: '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' }, 404, undefined],
    ];
    for (const [body, status, path] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      const envelope = await res.json();
      if (path) expect(envelope.error.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(res.headers.getSetCookie().some((c) => c.startsWith(SESSION_COOKIE))).toBe(false);
    }
  });

  it('refuses a sign-in posted from another site', async () => {
    const res = await fetch(`${server.url}/auth/dev`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: 'display_name=Planted',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    expect(await server.db.select().from(users).where(eq(users.displayName, 'Planted'))).toEqual([]);
  });

  it('answers only requests from this machine: one a proxy forwarded gets 403 and signs nobody in', async () => {
    const proxies: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }];
    for (const forwarded of proxies) {
      expect((await fetch(`${server.url}/auth/dev`, { headers: forwarded })).status).toBe(403);
      const res = await fetch(`${server.url}/auth/dev`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...forwarded },
        body: '{"display_name":"Forwarded"}',
      });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('FORBIDDEN');
      expect(res.headers.getSetCookie().some((c) => c.startsWith(SESSION_COOKIE))).toBe(false);
    }
    expect(await server.db.select().from(users).where(eq(users.displayName, 'Forwarded'))).toEqual([]);
  });

  it('refuses every header a proxy adds, a Host naming another machine, and HTTP/1.0; the same request made locally works', async () => {
    const port = new URL(server.url).port;
    const proxied: [string, string, string][] = [
      ['X-Real-IP', 'x-real-ip', '203.0.113.9'],
      ['Via', 'via', '1.1 proxy.example'],
      ['X-Forwarded-Host', 'x-forwarded-host', 'gigs.example.com'],
      ['X-Forwarded-Proto', 'x-forwarded-proto', 'https'],
      ['True-Client-IP', 'true-client-ip', '203.0.113.9'],
      ['CF-Connecting-IP', 'cf-connecting-ip', '203.0.113.9'],
      ['X-Client-IP', 'x-client-ip', '203.0.113.9'],
      ['Host', 'host', 'gigs.example.com'],
      ['Host', 'host', `gigs.example.com:${port}`],
    ];
    for (const [what, name, value] of proxied) {
      for (const [method, body] of [
        ['GET', undefined],
        ['POST', 'display_name=Proxied'],
      ] as const) {
        const res = await rawHttp(server, { method, headers: { [name]: value }, body });
        expect(res.status, `${method} with ${what}: ${value}`).toBe(403);
        expect(JSON.parse(res.body).error, what).toEqual({
          code: 'FORBIDDEN',
          message: expect.stringMatching(/^the dev sign-in answers only requests made on this machine, not through a proxy: /),
          issues: [],
        });
        expect(res.setsSession, what).toBe(false);
      }
    }
    // What nginx sends upstream for a plain `proxy_pass http://127.0.0.1:PORT;`: HTTP/1.0, Host set
    // to the upstream (loopback), Connection: close, and no header that names the client.
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', 'display_name=Proxied'],
    ] as const) {
      const res = await rawHttp(server, { method, version: '1.0', headers: { host: `127.0.0.1:${port}`, connection: 'close' }, body });
      expect(res.status, `${method} as nginx forwards it`).toBe(403);
      expect(JSON.parse(res.body).error.message).toMatch(/HTTP\/1\.0/);
    }
    expect(await server.db.select().from(users).where(eq(users.displayName, 'Proxied'))).toEqual([]);

    // Made on this machine, under any of its names, it works.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await rawHttp(server, { method: 'GET', headers: { host } })).status, host).toBe(200);
    }
    const local = await rawHttp(server, { method: 'POST', headers: { host: `localhost:${port}` }, body: 'display_name=Local' });
    expect(local.status).toBe(303);
    expect(local.setsSession).toBe(true);
  });

  it('offers the dev sign-in (and not GitHub) to the signed-out dashboard', async () => {
    expect(await signInMethods(server)).toEqual({ github: false, dev: true });
    expect((await fetch(`${server.url}/auth/github`, { redirect: 'manual' })).status).toBe(404);
  });
});

describe('dev sign-in beyond loopback', () => {
  it('does not exist when the server listens beyond this machine', async () => {
    const server = await startTestServer({ HOST: '0.0.0.0' });
    try {
      expect((await fetch(`${server.url}/auth/dev`)).status).toBe(404);
      expect(await signInMethods(server)).toEqual({ github: false, dev: false });
    } finally {
      await server.close();
    }
  });

  it('exists there, and for forwarded requests, only with DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true', async () => {
    expect(() => loadConfig({ DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: 'yes' })).toThrow(/DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE must be true or false/);
    const server = await startTestServer({ HOST: '0.0.0.0', DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: 'true' });
    try {
      expect((await fetch(`${server.url}/auth/dev`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(200);
      expect(await signInMethods(server)).toEqual({ github: false, dev: true });
    } finally {
      await server.close();
    }
  });
});

describe('PUBLIC_URL', () => {
  it('must be an http(s) URL: the OAuth callback and the same-origin check are made from it', () => {
    for (const bad of ['gigs.example.com', 'localhost:3000', 'ftp://gigs.example.com']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL must be an http\(s\) URL/);
    }
    expect(loadConfig({ PUBLIC_URL: 'https://gigs.example.com/' }).publicUrl).toBe('https://gigs.example.com');
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
  });
});

describe('TRUST_PROXY', () => {
  it('believes no X-Forwarded-* unless told; else all hops, a number of hops, or listed proxies', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['yes', 'proxy.example.com', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '1.2.3']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY must be/);
    }
  });
});
