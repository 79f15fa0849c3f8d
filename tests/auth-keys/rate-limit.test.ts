// Rate limits (OWASP API4) over HTTP against real servers with small limits and a 3 s window:
// per credential, per client address for anonymous and failed requests (refused before any
// database query), costs from the spec, the RateLimit headers, the window's reset, counters
// shared through Redis by two servers, and requests let through while Redis is unreachable.
// Clients are told apart by X-Forwarded-For (TRUST_PROXY trusts the test's own 127.0.0.1), so each
// test uses addresses of its own.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Redis } from 'ioredis';
import Fastify from 'fastify';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { loadConfig } from '../../src/config.ts';
import { registerRateLimits } from '../../src/http/rate-limit.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { redisReachable, redisTitle, redisUrl, runWithRedis } from '../helpers/redis.ts';

const spec = loadSpec();
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(spec, 'spec');
const isEnvelope = ajv.compile({ $ref: 'spec#/components/schemas/ErrorResponse' });

const PER_CREDENTIAL = 10;
const ANONYMOUS = 4;
const WINDOW_SECONDS = 3;
const LIMITS = {
  RATE_LIMIT_PER_MINUTE: String(PER_CREDENTIAL),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS),
  RATE_LIMIT_WINDOW: `${WINDOW_SECONDS}s`,
  TRUST_PROXY: '127.0.0.1',
};

let nextAddress = 1;
/** A client address no other test uses (TEST-NET-3). */
const newAddress = () => `203.0.113.${nextAddress++}`;
/** Well-formed, but no such key exists: authentication has to look it up. */
const unknownKey = () => `gm_live_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;

/** A typed client (responses checked against the spec) that comes from `address`. */
function clientFrom(server: TestServer, address: string, apiKey?: string) {
  const client = createClient<paths>({
    baseUrl: server.url,
    headers: { 'x-forwarded-for': address, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
  });
  client.use(specValidation);
  return client;
}

/** A raw request from `address`; the error envelope, when there is one, is checked against the spec. */
async function call(
  server: TestServer,
  path: string,
  address: string,
  init: { apiKey?: string; method?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'x-forwarded-for': address, ...init.headers };
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
  const res = await fetch(`${server.url}${path}`, { method: init.method ?? 'GET', headers });
  const text = await res.text();
  const body = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text;
  if (res.status >= 400) expect(isEnvelope(body), `${text} is not the error envelope`).toBe(true);
  return { status: res.status, body, headers: res.headers };
}

/** Parses `"policy";q=..;w=..` or `"policy";r=..;t=..` into its policy and parameters. */
function field(value: string | null): { policy: string; [param: string]: string } {
  expect(value, 'header present').toBeTruthy();
  const [policy, ...params] = value!.split(';');
  return { policy: JSON.parse(policy!), ...Object.fromEntries(params.map((p) => p.split('='))) };
}

function expectRateLimited(res: { status: number; body: any; headers: Headers }, who: RegExp, windowSeconds = WINDOW_SECONDS) {
  expect(res.status).toBe(429);
  expect(res.body.error).toEqual({ code: 'RATE_LIMITED', message: expect.stringMatching(who), issues: [] });
  expect(res.body.error.message).toMatch(/retry after \d+ s$/);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(field(res.headers.get('ratelimit')).r).toBe('0');
}

describe('rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(LIMITS);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('announces the credential budget on a success: RateLimit-Policy and RateLimit', async () => {
    const { apiKey } = await server.user('Headers');
    const res = await clientFrom(server, newAddress(), apiKey).GET('/api/keys/verify');
    expect(res.response.status).toBe(200);
    expect(field(res.response.headers.get('ratelimit-policy'))).toEqual({
      policy: 'credential',
      q: String(PER_CREDENTIAL),
      w: String(WINDOW_SECONDS),
    });
    const now = field(res.response.headers.get('ratelimit'));
    expect(now).toMatchObject({ policy: 'credential', r: String(PER_CREDENTIAL - 1) });
    expect(Number(now.t)).toBeGreaterThanOrEqual(1);
    expect(Number(now.t)).toBeLessThanOrEqual(WINDOW_SECONDS);
    // The plugin's own (older draft) headers are not sent.
    expect(res.response.headers.get('ratelimit-limit')).toBeNull();
    expect(res.response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('refuses a credential over its budget with 429 RATE_LIMITED, Retry-After and the envelope; other credentials go on', async () => {
    const address = newAddress();
    const [busy, calm] = await server.users('Busy', 'Calm');
    for (let i = 1; i <= PER_CREDENTIAL; i++) {
      const ok = await call(server, '/api/keys/verify', address, { apiKey: busy.apiKey });
      expect(ok.status, `request ${i}`).toBe(200);
      expect(field(ok.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - i));
    }
    const refused = await call(server, '/api/keys/verify', address, { apiKey: busy.apiKey });
    expectRateLimited(refused, /^rate limit exceeded for this API key: its 10 units per 3 s are spent; /);
    expect(field(refused.headers.get('ratelimit-policy')).policy).toBe('credential');
    // Declared in the spec (the typed client checks the 429 against it).
    const typed = await clientFrom(server, address, busy.apiKey).GET('/api/gigs');
    expect(typed.response.status).toBe(429);

    // Another key, from the same address, is unaffected.
    const other = await clientFrom(server, address, calm.apiKey).GET('/api/keys/verify');
    expect(other.response.status).toBe(200);
    expect(field(other.response.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 1));
  });

  it("takes an operation's x-rate-limit-cost: a search costs 5 units of the same budget", async () => {
    const address = newAddress();
    const searcher = await server.user('Searcher');
    const api = clientFrom(server, address, searcher.apiKey);
    const first = await api.GET('/api/discovery/gigs', { params: { query: { q: 'rust' } } });
    expect(first.response.status).toBe(200);
    expect(field(first.response.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 5));
    const cheap = await api.GET('/api/keys/verify');
    expect(field(cheap.response.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 6));
    // 4 units left: a search (5) no longer fits, and is refused without spending them.
    const second = await call(server, '/api/discovery/gigs?q=rust', address, { apiKey: searcher.apiKey });
    expect(second.status).toBe(429);
    expect(second.body.error).toEqual({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(
        /^rate limit exceeded for this API key: only 4 of its 10 units per 3 s are left and this operation costs 5; retry after \d+ s$/,
      ),
      issues: [],
    });
    expect(field(second.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 6));
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const stillCheap = await api.GET('/api/keys/verify');
    expect(stillCheap.response.status).toBe(200);
    expect(field(stillCheap.response.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 7));
    for (let i = 0; i < 3; i++) await api.GET('/api/keys/verify');
    expectRateLimited(
      await call(server, '/api/discovery/gigs?q=rust', address, { apiKey: searcher.apiKey }),
      /^rate limit exceeded for this API key: its 10 units per 3 s are spent \(this operation costs 5\); /,
    );
  });

  it('limits requests without credentials per client address, with the address budget in the headers', async () => {
    const address = newAddress();
    for (let i = 1; i <= ANONYMOUS; i++) {
      const res = await call(server, '/api/gigs', address);
      expect(res.status, `request ${i}`).toBe(401);
      expect(field(res.headers.get('ratelimit-policy'))).toEqual({ policy: 'address', q: String(ANONYMOUS), w: String(WINDOW_SECONDS) });
      expect(field(res.headers.get('ratelimit')).r).toBe(String(ANONYMOUS - i));
    }
    const refused = await call(server, '/api/gigs', address);
    expectRateLimited(
      refused,
      new RegExp(
        `^rate limit exceeded for address ${address.replace(/\./g, '\\.')}: its 4 units per 3 s for requests without accepted credentials are spent; `,
      ),
    );
    // Another address is unaffected.
    expect((await call(server, '/api/gigs', newAddress())).status).toBe(401);
  });

  it('limits failed authentication per client address; a spent address refuses what it cannot tell from a bad key', async () => {
    const address = newAddress();
    const { apiKey } = await server.user('Same Address');
    for (let i = 1; i <= ANONYMOUS; i++) {
      expect((await call(server, '/api/keys/verify', address, { apiKey: unknownKey() })).status, `request ${i}`).toBe(401);
    }
    expectRateLimited(await call(server, '/api/keys/verify', address, { apiKey: unknownKey() }), /^rate limit exceeded for address /);
    // A valid key this process has not met yet: telling it from a bad one would take the database
    // read the limit is there to spare.
    expectRateLimited(await call(server, '/api/keys/verify', address, { apiKey }), /^rate limit exceeded for address /);
    // Elsewhere that key works, and failures from another address are still plain 401s.
    expect((await call(server, '/api/keys/verify', newAddress(), { apiKey })).status).toBe(200);
    expect((await call(server, '/api/keys/verify', newAddress(), { apiKey: unknownKey() })).status).toBe(401);
  });

  it('lets a valid key through a spent address on its own budget: junk keys and page loads lock out no agent behind the same NAT', async () => {
    await validKeyBehindSpentAddress(server);
  });

  it('refuses an address over its budget without a database query', async () => {
    // Every query the server makes goes through its database driver; the job system's own
    // (pg-boss, polling in the background) are told apart by their schema.
    const database = server.runtime.database;
    const queries: string[] = [];
    const record = (sqlText: unknown) => {
      if (typeof sqlText === 'string' && !/pgboss/i.test(sqlText)) queries.push(sqlText);
    };
    const restore = instrument(database, record);
    try {
      const address = newAddress();
      // The control: an unknown key is looked up in the database, and the instrument sees it.
      for (let i = 1; i <= ANONYMOUS; i++) {
        queries.length = 0;
        expect((await call(server, '/api/keys/verify', address, { apiKey: unknownKey() })).status).toBe(401);
        expect(
          queries.some((q) => /api_keys/.test(q)),
          `request ${i} looked the key up: ${queries.join(' | ')}`,
        ).toBe(true);
      }
      queries.length = 0;
      expectRateLimited(await call(server, '/api/keys/verify', address, { apiKey: unknownKey() }), /^rate limit exceeded for address /);
      expectRateLimited(await call(server, '/api/gigs', address), /^rate limit exceeded for address /);
      expect(queries).toEqual([]);
    } finally {
      restore();
    }
  });

  it('counts an IPv6 client by its /64, and an IPv4 address mapped into IPv6 as that IPv4 address', async () => {
    const net = nextAddress++; // decimal digits read the same as hex
    for (let i = 1; i <= ANONYMOUS; i++)
      expect((await call(server, '/api/gigs', `2001:db8:${net}::${i}`)).status, `request ${i}`).toBe(401);
    expectRateLimited(
      await call(server, '/api/gigs', `2001:db8:${net}:0:ffff:ffff:ffff:ffff`),
      new RegExp(`^rate limit exceeded for address 2001:db8:${net}::/64: `),
    );
    // The next /64 has a budget of its own.
    expect((await call(server, '/api/gigs', `2001:db8:${net}:1::1`)).status).toBe(401);

    const v4 = newAddress();
    for (let i = 1; i <= ANONYMOUS; i++) await call(server, '/api/gigs', v4);
    expectRateLimited(
      await call(server, '/api/gigs', `::ffff:${v4}`),
      new RegExp(`^rate limit exceeded for address ${v4.replace(/\./g, '\\.')}: `),
    );
  });

  it('does not limit GET /api/health, even for a spent address', async () => {
    const address = newAddress();
    for (let i = 0; i <= ANONYMOUS; i++) await call(server, '/api/gigs', address);
    expect((await call(server, '/api/gigs', address)).status).toBe(429);
    for (let i = 0; i < 3 * ANONYMOUS; i++) {
      const health = await call(server, '/api/health', address);
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit')).toBeNull();
    }
  });

  it('limits the browser pages outside the API per address too, but not unknown paths', async () => {
    const address = newAddress();
    for (let i = 1; i <= ANONYMOUS; i++) expect((await call(server, '/', address)).status).toBe(200);
    expectRateLimited(await call(server, '/', address), /^rate limit exceeded for address /);
    expect((await call(server, '/nothing-here', address)).status).toBe(404);
  });

  it('counts again from zero once the window has passed', async () => {
    const address = newAddress();
    const { apiKey } = await server.user('Patient');
    let refused;
    for (let i = 0; i <= PER_CREDENTIAL; i++) refused = await call(server, '/api/keys/verify', address, { apiKey });
    expectRateLimited(refused!, /this API key/);
    await new Promise((resolve) => setTimeout(resolve, Number(refused!.headers.get('retry-after')) * 1000 + 100));
    const again = await call(server, '/api/keys/verify', address, { apiKey });
    expect(again.status).toBe(200);
    expect(field(again.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 1));
  });
});

/**
 * One address (a NAT) with an agent whose key this process knows (it was used before), and a
 * neighbour who spends the address's budget on junk keys and page loads. The agent's requests then
 * go on, each from its key's budget, answered from the key cache without a database read; the
 * address stays spent for everything else.
 */
async function validKeyBehindSpentAddress(server: TestServer, windowSeconds = WINDOW_SECONDS) {
  const address = newAddress();
  const { apiKey, apiKeyId } = await server.user('Behind a NAT');
  expect((await call(server, '/api/keys/verify', newAddress(), { apiKey })).status).toBe(200);
  for (let i = 1; i <= ANONYMOUS; i++) {
    const res = i % 2 ? await call(server, '/api/keys/verify', address, { apiKey: unknownKey() }) : await call(server, '/', address);
    expect(res.status, `request ${i}`).toBe(i % 2 ? 401 : 200);
  }
  expectRateLimited(
    await call(server, '/api/keys/verify', address, { apiKey: unknownKey() }),
    /^rate limit exceeded for address /,
    windowSeconds,
  );
  expectRateLimited(await call(server, '/', address), /^rate limit exceeded for address /, windowSeconds);

  const queries: string[] = [];
  const restore = instrument(server.runtime.database, (sqlText) => {
    if (typeof sqlText === 'string' && /api_keys/.test(sqlText)) queries.push(sqlText);
  });
  try {
    for (let i = 2; i <= 4; i++) {
      const ok = await call(server, '/api/keys/verify', address, { apiKey });
      expect(ok.status, `the agent's request ${i}`).toBe(200);
      expect(ok.body.api_key_id).toBe(apiKeyId);
      expect(field(ok.headers.get('ratelimit-policy')).policy).toBe('credential');
      expect(field(ok.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - i));
    }
  } finally {
    restore();
  }
  expect(queries, 'the key came from the cache').toEqual([]);
  // The neighbour is still refused, and the agent's requests spent nothing of the address.
  expectRateLimited(await call(server, '/api/gigs', address), /^rate limit exceeded for address /, windowSeconds);
  expectRateLimited(
    await call(server, '/api/keys/verify', address, { apiKey: unknownKey() }),
    /^rate limit exceeded for address /,
    windowSeconds,
  );
}

/** Wraps the driver's query entry point (PGlite's query, postgres.js's unsafe); returns the undo. */
function instrument(database: TestServer['runtime']['database'], record: (sqlText: unknown) => void): () => void {
  const target = (database.kind === 'pglite' ? database.pglite : database.sql) as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const name = database.kind === 'pglite' ? 'query' : 'unsafe';
  const original = target[name]!;
  target[name] = function (this: unknown, ...args: unknown[]) {
    record(args[0]);
    return original.apply(this, args);
  };
  return () => {
    target[name] = original;
  };
}

describe('RATE_LIMIT=off', () => {
  it('turns every limit off: no headers, no 429', async () => {
    expect(loadConfig({ RATE_LIMIT: 'off' }).rateLimit).toBeUndefined();
    expect(() => loadConfig({ RATE_LIMIT: 'maybe' })).toThrow(/RATE_LIMIT must be on or off/);
    const server = await startTestServer({ ...LIMITS, RATE_LIMIT: 'off' });
    try {
      const address = newAddress();
      for (let i = 0; i < 3 * ANONYMOUS; i++) {
        const res = await call(server, '/api/keys/verify', address, { apiKey: unknownKey() });
        expect(res.status).toBe(401);
        expect(res.headers.get('ratelimit')).toBeNull();
      }
    } finally {
      await server.close();
    }
  });
});

describe('REDIS_URL that does not answer', () => {
  it('stops the server at start, naming it (the password hidden)', async () => {
    const app = Fastify();
    await expect(registerRateLimits(app, loadConfig({ ...LIMITS, REDIS_URL: 'redis://:secret@127.0.0.1:1' }))).rejects.toThrow(
      /^REDIS_URL: cannot connect to redis:\/\/:\*\*\*@127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
    await app.close();
  });
});

describe('the spec', () => {
  const operations = listOperations(spec);
  const byId = new Map(operations.map((o) => [o.operationId, o.operation]));

  it("declares 429 RateLimited on every operation but GET /api/health, the orchestrators' probes and the receipt keys, which cost 0", () => {
    const free = ['getHealth', 'getLiveness', 'getReadiness', 'getReceiptKeys'];
    const missing = operations.filter(
      (o) => !free.includes(o.operationId) && o.operation.responses['429']?.$ref !== '#/components/responses/RateLimited',
    );
    expect(missing.map((o) => o.operationId)).toEqual([]);
    for (const id of free) {
      expect(byId.get(id)!['x-rate-limit-cost']).toBe(0);
      expect(byId.get(id)!.responses['429']).toBeUndefined();
    }
  });

  it('gives the 429 Retry-After and the RateLimit headers', () => {
    expect(Object.keys(spec.components.responses.RateLimited.headers).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
  });

  it('weighs search, recommendations, payment-provider calls and any upload above 1', () => {
    for (const id of [
      'searchGigs',
      'recommendGigs',
      'recommendWorkers',
      'approveContract',
      'fundMilestone',
      'releaseMilestone',
      'getConnectLink',
    ]) {
      expect(byId.get(id)?.['x-rate-limit-cost'], id).toBeGreaterThan(1);
    }
    // An operation that takes a file (the resume upload) must say what it costs.
    const uploads = operations.filter((o) => o.operation.requestBody?.content?.['multipart/form-data']);
    expect(uploads.length).toBeGreaterThan(0);
    for (const o of uploads) expect(o.operation['x-rate-limit-cost'], o.operationId).toBeGreaterThan(1);
  });
});

// Two server processes share one counter when REDIS_URL is set (tests/helpers/redis.ts names the Redis).
describe.skipIf(!runWithRedis)(redisTitle('with REDIS_URL'), () => {
  it('shares one counter between two servers, kept in Redis', async () => {
    expect(redisReachable, `no Redis answers at ${redisUrl} (set REDIS_TEST_URL)`).toBe(true);
    const prefix = `gigmarket-test:${randomBytes(6).toString('hex')}:`;
    const env = { ...LIMITS, RATE_LIMIT_WINDOW: '10s', REDIS_URL: redisUrl, RATE_LIMIT_PREFIX: prefix };
    const a = await startTestServer(env);
    let b: TestServer | undefined;
    const redis = new Redis(redisUrl);
    try {
      b = await startTestServer(env);
      const address = newAddress();
      expect((await call(a, '/api/gigs', address)).status).toBe(401);
      expect((await call(b, '/api/gigs', address)).status).toBe(401);
      expect((await call(a, '/api/gigs', address)).status).toBe(401);
      const last = await call(b, '/api/gigs', address);
      expect(last.status).toBe(401);
      expect(field(last.headers.get('ratelimit')).r).toBe('0');
      expect(await redis.get(`${prefix}address:${address}`)).toBe(String(ANONYMOUS));
      expectRateLimited(await call(a, '/api/gigs', address), /^rate limit exceeded for address /, 10);
      expectRateLimited(await call(b, '/api/gigs', address), /^rate limit exceeded for address /, 10);

      // Credential counters live there too (each test server has a database of its own, so
      // one key cannot be shown on both; the store is the same one the address used).
      const { apiKey, apiKeyId } = await a.user('Shared');
      expect((await call(a, '/api/keys/verify', newAddress(), { apiKey })).status).toBe(200);
      expect(await redis.get(`${prefix}api_key:${apiKeyId}`)).toBe('1');
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await Promise.all([a.close(), b?.close()]);
    }
  });

  it('lets a valid key through a spent address on its own budget, counted in Redis', async () => {
    expect(redisReachable, `no Redis answers at ${redisUrl} (set REDIS_TEST_URL)`).toBe(true);
    const prefix = `gigmarket-test:${randomBytes(6).toString('hex')}:`;
    const server = await startTestServer({ ...LIMITS, RATE_LIMIT_WINDOW: '10s', REDIS_URL: redisUrl, RATE_LIMIT_PREFIX: prefix });
    const redis = new Redis(redisUrl);
    try {
      await validKeyBehindSpentAddress(server, 10);
      expect((await redis.keys(`${prefix}address:*`)).length).toBe(1);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await server.close();
    }
  });

  it('lets requests through, unannounced, while Redis is unreachable, and counts again once it is back', async () => {
    expect(redisReachable, `no Redis answers at ${redisUrl} (set REDIS_TEST_URL)`).toBe(true);
    // Redis behind a TCP relay of our own, so that the test can take it away and bring it back.
    const target = new URL(redisUrl);
    const sockets = new Set<Socket>();
    const relay = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayPort = (relay.address() as AddressInfo).port;
    const relayUrl = new URL(redisUrl);
    relayUrl.hostname = '127.0.0.1';
    relayUrl.port = String(relayPort);
    const prefix = `gigmarket-test:${randomBytes(6).toString('hex')}:`;
    const server = await startTestServer({ ...LIMITS, REDIS_URL: relayUrl.toString(), RATE_LIMIT_PREFIX: prefix });
    const redis = new Redis(redisUrl);
    try {
      const { apiKey, apiKeyId } = await server.user('Through an outage');
      const address = newAddress();
      const first = await call(server, '/api/keys/verify', address, { apiKey });
      expect(first.status).toBe(200);
      expect(field(first.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 1));

      // Redis goes away: nothing is counted, nothing is refused, no budget is announced.
      relay.close();
      for (const s of sockets) s.destroy();
      for (let i = 0; i < PER_CREDENTIAL + 2; i++) {
        const res = await call(server, '/api/keys/verify', address, { apiKey });
        expect(res.status, `request ${i + 1} during the outage`).toBe(200);
        expect(res.headers.get('ratelimit')).toBeNull();
      }
      expect(await redis.get(`${prefix}api_key:${apiKeyId}`)).toBe('1');

      // Back on the same address: ioredis reconnects, and counting resumes where it was.
      await new Promise<void>((resolve) => relay.listen(relayPort, '127.0.0.1', resolve));
      let back: Awaited<ReturnType<typeof call>> | undefined;
      for (let waited = 0; waited < 10_000; waited += 200) {
        back = await call(server, '/api/keys/verify', address, { apiKey });
        if (back.headers.get('ratelimit')) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(back!.status).toBe(200);
      expect(field(back!.headers.get('ratelimit')).r).toBe(String(PER_CREDENTIAL - 2));
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await server.close();
      relay.close();
      for (const s of sockets) s.destroy();
    }
  });
});
