// The error envelope and its precise code for failures that never reach a handler: Fastify's own
// (unknown route, bad JSON, too large, wrong content type), authentication, and a 5xx, which must
// not leak internals. Raw fetch, since these requests are ones a typed client would not send.
import { Ajv2020 } from 'ajv/dist/2020.js';
import net from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec.ts';
import { gigs, negotiations, users } from '../../db/schema.ts';
import { shortlistedGig } from '../helpers/lifecycle.ts';
import { testFileServer, startTestServer } from '../helpers/server.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(loadSpec(), 'spec');
const isEnvelope = ajv.compile({ $ref: 'spec#/components/schemas/ErrorResponse' });

const server = testFileServer();
let apiKey: string;
beforeAll(async () => {
  ({ apiKey } = await server.user('Erin'));
});

interface ErrorBody {
  error: { code: string; message: string; issues: { path: string; message: string }[] };
}

/** A raw request; returns status, the parsed envelope (checked against the spec) and headers. */
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: ErrorBody; headers: Headers; text: string }> {
  const res = await fetch(url, init);
  const text = await res.text();
  const body = JSON.parse(text) as ErrorBody;
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(isEnvelope(body), `${text} is not the error envelope: ${ajv.errorsText(isEnvelope.errors)}`).toBe(true);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  return { status: res.status, body, headers: res.headers, text };
}

const postGig = (body: BodyInit, headers: Record<string, string>, url = server.url) =>
  call(`${url}/api/gigs`, { method: 'POST', headers, body });
const withKey = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${apiKey}`, ...headers });

describe("Fastify's own errors", () => {
  it('answers an unknown route with 404 NOT_FOUND naming it', async () => {
    const { status, body } = await call(`${server.url}/api/nothing-here?x=1`);
    expect(status).toBe(404);
    expect(body.error).toEqual({ code: 'NOT_FOUND', message: 'no route for GET /api/nothing-here', issues: [] });
  });

  it('answers a method the path does not define with 405 METHOD_NOT_ALLOWED and Allow listing the methods it has', async () => {
    const gig = `/api/gigs/${'0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f'}`;
    for (const [method, path, allow] of [
      ['PUT', '/api/credits', 'GET, HEAD, POST'],
      ['DELETE', '/api/health', 'GET, HEAD'],
      ['OPTIONS', '/api/health', 'GET, HEAD'],
      ['PUT', gig, 'GET, HEAD, PATCH, DELETE'],
      ['POST', gig, 'GET, HEAD, PATCH, DELETE'],
    ]) {
      // With credentials or without: which methods a path has is no secret (the spec is public).
      for (const headers of [withKey(), {}]) {
        const { status, body, headers: got } = await call(`${server.url}${path}`, { method, headers });
        expect(status, `${method} ${path}`).toBe(405);
        expect(got.get('allow'), `${method} ${path}`).toBe(allow);
        expect(body.error).toEqual({
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on ${path}; it allows ${allow}`,
          issues: [],
        });
      }
    }
  });

  it('answers 405 before reading the body of a method the path does not define', async () => {
    for (const body of ['{"half', JSON.stringify({ x: 'y'.repeat(2 * 1024 * 1024) })]) {
      const res = await call(`${server.url}/api/credits`, {
        method: 'PUT',
        headers: withKey({ 'content-type': 'application/json' }),
        body,
      });
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers an unknown route with 404 even when its body is malformed or too large', async () => {
    for (const body of ['{"half', JSON.stringify({ x: 'y'.repeat(2 * 1024 * 1024) })]) {
      const { status, body: error } = await call(`${server.url}/api/nothing-here`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(status).toBe(404);
      expect(error.error.code).toBe('NOT_FOUND');
    }
  });

  it('answers a path that is not valid percent-encoding, or too long to route, with 400 VALIDATION_FAILED at path', async () => {
    for (const path of [`/api/gigs/${'a'.repeat(200)}`, '/api/gigs/%', '/api/gigs/%E0%A4%A']) {
      const { status, body } = await call(`${server.url}${path}`, { headers: withKey() });
      expect(status, path).toBe(400);
      expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'path', message: expect.any(String) }] });
    }
  });

  it('answers malformed JSON with 400 VALIDATION_FAILED and an issue at body', async () => {
    const { status, body } = await postGig('{"title": "half', withKey({ 'content-type': 'application/json' }));
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.issues).toEqual([{ path: 'body', message: expect.any(String) }]);
  });

  it('answers an empty JSON body with 400 VALIDATION_FAILED at body', async () => {
    const { status, body } = await postGig('', withKey({ 'content-type': 'application/json' }));
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.issues.map((i) => i.path)).toEqual(['body']);
  });

  it('answers an unsupported content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const { status, body } = await postGig('title=Logo', withKey({ 'content-type': 'application/x-www-form-urlencoded' }));
    expect(status).toBe(415);
    expect(body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', issues: [] });
    // Image types appear in the spec as a download's content, never as a body the API takes.
    const image = await postGig('\x89PNG', withKey({ 'content-type': 'image/png' }));
    expect(image.status).toBe(415);
    expect(image.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', issues: [] });
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 PAYLOAD_TOO_LARGE, and accepts one under it', async () => {
    const small = await startTestServer({ BODY_LIMIT_BYTES: '1024' });
    try {
      const { apiKey: key } = await small.user('Sam');
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const big = await postGig(JSON.stringify({ title: 'Big', description: 'x'.repeat(2000) }), headers, small.url);
      expect(big.status).toBe(413);
      expect(big.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', issues: [] });
      const ok = await fetch(`${small.url}/api/gigs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ title: 'Small', description: 'x'.repeat(500) }),
      });
      expect(ok.status).toBe(201);
    } finally {
      await small.close();
    }
  });
});

/** Sends raw bytes and reads until the server closes: for requests Node's parser refuses. */
function rawRequest(bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

describe('requests Node refuses before routing', () => {
  it('answers headers over the 16 KB limit with 431 and the envelope', async () => {
    const res = await rawRequest(`GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(res.body);
    expect(isEnvelope(body), ajv.errorsText(isEnvelope.errors)).toBe(true);
    expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'header' }] });
    expect(body.error.message).toMatch(/headers exceed \d+ bytes/);
  });

  it('answers a request that is not HTTP with 400 and the envelope', async () => {
    const res = await rawRequest('HELLO THERE\r\n\r\n');
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body);
    expect(isEnvelope(body), ajv.errorsText(isEnvelope.errors)).toBe(true);
    expect(body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'the request is not valid HTTP/1.1',
      issues: [{ path: 'request' }],
    });
  });
});

describe('bodies the operation does not declare', () => {
  const gigCount = async (userId: string) => (await server.db.select().from(gigs).where(eq(gigs.clientUserId, userId))).length;

  it('answers a required body that is missing altogether with 400 at body, and changes nothing', async () => {
    const { userId, apiKey: key } = await server.user('No Body');
    const auth = { authorization: `Bearer ${key}` };
    const gig = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"title":"Mine"}',
    });
    const { id } = (await gig.json()) as { id: string };
    for (const [method, path] of [
      ['POST', '/api/gigs'],
      ['PATCH', `/api/gigs/${id}`],
      ['POST', `/api/gigs/${id}/shortlist`],
      ['PATCH', '/api/profile/me'],
    ]) {
      const { status, body } = await call(`${server.url}${path}`, { method, headers: auth });
      expect(status, `${method} ${path}`).toBe(400);
      expect(body.error.code).toBe('VALIDATION_FAILED');
      expect(body.error.issues.map((i) => i.path)).toEqual(['body']);
    }
    expect(await gigCount(userId)).toBe(1);
  });

  it('answers a multipart body on a JSON operation with 415, and creates nothing', async () => {
    const { userId, apiKey: key } = await server.user('Form Poster');
    const form = new FormData();
    form.set('title', 'From a form');
    const { status, body } = await call(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(status).toBe(415);
    expect(body.error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'this operation takes application/json, not multipart/form-data',
      issues: [],
    });
    expect(await gigCount(userId)).toBe(0);
  });

  it('runs the multipart plugin only on the operations that take uploads', async () => {
    // The plugin's own onRequest hook (and onResponse) would otherwise run on every request.
    const routes = server.runtime.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
    const onRequest = (path: string, method: string) => {
      const at = routes.findIndex((line) => line.endsWith(`${path} (${method})`));
      return JSON.parse(routes[at + 1]!.split('(onRequest) ')[1]!) as string[];
    };
    const api = ['anonymous()', 'fastifyCookieHandler()', 'limitedAuthentication()'];
    expect(onRequest('api/gigs', 'POST')).toEqual(api);
    expect(onRequest('/resume', 'DELETE')).toEqual(api);
    expect(onRequest('/resume', 'POST')).toEqual([...api, 'anonymous()']);
  });
});

describe('values the database cannot hold are refused as invalid input, not failed on', () => {
  const urn = 'urn:uuid:0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b';

  it('refuses a UUID in urn: form, in a path or a body, with 400 naming it', async () => {
    const { apiKey: key } = await server.user('Urn Sender');
    const auth = { authorization: `Bearer ${key}` };
    const gig = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"title":"Urn"}',
    });
    const { id } = (await gig.json()) as { id: string };
    const cases: [string, RequestInit, string][] = [
      [`/api/gigs/${urn}`, { headers: auth }, 'path.id'],
      [`/api/profile/${urn}`, { headers: auth }, 'path.userId'],
      [
        `/api/gigs/${id}/shortlist`,
        { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ worker_user_id: urn }) },
        'body.worker_user_id',
      ],
    ];
    for (const [path, init, issue] of cases) {
      const { status, body } = await call(`${server.url}${path}`, init);
      expect(status, path).toBe(400);
      expect(body.error.issues.map((i) => i.path)).toContain(issue);
    }
  });

  it('answers a body nested deeper than the call stack with 400, not 500', async () => {
    const { apiKey: key } = await server.user('Deep Nester');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (const body of ['['.repeat(100_000) + ']'.repeat(100_000), '{"bio":'.repeat(50_000) + '"x"' + '}'.repeat(50_000)]) {
      const { status, body: error } = await call(`${server.url}/api/profile/me`, { method: 'PATCH', headers, body });
      expect(status).toBe(400);
      expect(error.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses a date in year 0 (Postgres has none) with 400 naming the field, and stores nothing', async () => {
    const [client, worker] = await server.users('Year Zero Client', 'Year Zero Worker');
    const gig = await shortlistedGig(client, worker);
    const terms = {
      gig_id: gig.id,
      worker_user_id: worker.userId,
      rate_cents: 8000,
      hours_per_week: 10,
      start_date: '0000-01-01',
      payout_delay_days: 3,
      milestones: [{ title: 'All', amount_cents: 100 }],
    };
    const { status, body } = await call(`${server.url}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(terms),
    });
    expect(status).toBe(400);
    expect(body.error.issues.map((i) => i.path)).toEqual(['body.start_date']);
    expect(await server.db.select().from(negotiations).where(eq(negotiations.gigId, gig.id))).toEqual([]);
  });

  it('refuses a string holding the NUL character with 400 naming the field, and stores nothing', async () => {
    const { userId, apiKey: key } = await server.user('Nul Sender');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await call(`${server.url}/api/gigs`, { method: 'POST', headers, body: JSON.stringify({ title: 'Logo\u0000design' }) });
    expect(created.status).toBe(400);
    expect(created.body.error.issues.map((i) => i.path)).toEqual(['body.title']);
    expect(await server.db.select().from(gigs).where(eq(gigs.clientUserId, userId))).toEqual([]);

    const profile = await call(`${server.url}/api/profile/me`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ skills: ['rust', 'c\u0000'] }),
    });
    expect(profile.status).toBe(400);
    expect(profile.body.error.issues.map((i) => i.path)).toEqual(['body.skills[1]']);
    const [row] = await server.db.select().from(users).where(eq(users.id, userId));
    expect(row!.skills).toEqual([]);
  });
});

describe('authentication failures: 401 UNAUTHENTICATED, before anything else is looked at', () => {
  it('without credentials', async () => {
    const { status, body } = await call(`${server.url}/api/keys/verify`);
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ code: 'UNAUTHENTICATED', issues: [] });
  });

  it('without credentials, even when the body is malformed too', async () => {
    const { status, body } = await postGig('{not json', { 'content-type': 'application/json' });
    expect(status).toBe(401);
    expect(body.error.code).toBe('UNAUTHENTICATED');
  });

  it('with an Authorization header that is not "Bearer <key>"', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', `Token ${apiKey}`]) {
      const { status, body } = await call(`${server.url}/api/keys/verify`, { headers: { authorization } });
      expect(status, authorization).toBe(401);
      expect(body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('with a bearer token that is not an API key', async () => {
    const { status, body } = await call(`${server.url}/api/keys/verify`, { headers: { authorization: 'Bearer not-a-key' } });
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ code: 'UNAUTHENTICATED', message: 'the API key is malformed' });
  });

  it('with a well-formed key that does not exist, in either header', async () => {
    const unknown = `gm_live_${'A'.repeat(40)}`;
    for (const headers of [{ authorization: `Bearer ${unknown}` }, { 'x-api-key': unknown }] as Record<string, string>[]) {
      const { status, body } = await call(`${server.url}/api/keys/verify`, { headers });
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ code: 'UNAUTHENTICATED', message: 'the API key is unknown or revoked' });
    }
  });

  it('with a session cookie that is not signed by us', async () => {
    const { status, body } = await call(`${server.url}/api/profile/me`, { headers: { cookie: 'gm_session=forged.value' } });
    expect(status).toBe(401);
    expect(body.error.code).toBe('UNAUTHENTICATED');
  });

  it('and the same key works, so the failures above are about the credentials', async () => {
    const res = await fetch(`${server.url}/api/keys/verify`, { headers: withKey() });
    expect(res.status).toBe(200);
  });
});

describe('a 5xx', () => {
  it('is 500 INTERNAL with a generic message quoting the request id, and no internals', async () => {
    // Break the database under the server: authentication's query fails with an SQL error (a key
    // never used before, so that the server's key cache cannot answer for it).
    const unused = await server.user('Never used');
    await server.db.execute(sql`alter table api_keys rename to api_keys_hidden`);
    try {
      const { status, body, headers, text } = await call(`${server.url}/api/keys/verify`, {
        headers: { authorization: `Bearer ${unused.apiKey}`, 'x-request-id': 'trace-5xx-1' },
      });
      expect(status).toBe(500);
      expect(headers.get('x-request-id')).toBe('trace-5xx-1');
      expect(body.error).toEqual({ code: 'INTERNAL', message: expect.stringContaining('trace-5xx-1'), issues: [] });
      expect(text).not.toMatch(/api_keys|relation|select|stack|\bat \w|\.ts\b|pglite|postgres/i);
    } finally {
      await server.db.execute(sql`alter table api_keys_hidden rename to api_keys`);
    }
    const res = await fetch(`${server.url}/api/keys/verify`, { headers: withKey() });
    expect(res.status).toBe(200);
  });
});
