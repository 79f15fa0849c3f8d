import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { cookieClient, signInDev, type BrowserSession } from '../helpers/session.ts';
import { apiKeys } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { sha256 } from '../../src/auth/secrets.ts';
import { MAX_ACTIVE_KEYS_PER_USER } from '../../src/services/api-keys.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';

const server = testFileServer();
let owner: BrowserSession;
beforeAll(async () => {
  owner = await signInDev(server, { displayName: 'Key Owner' });
});

const keyRow = async (id: string) => (await server.db.select().from(apiKeys).where(eq(apiKeys.id, id)))[0];

async function createKey(session: BrowserSession, body: { name: string; hosted_agent_id?: string | null } = { name: 'agent' }) {
  const res = await session.api.POST('/api/keys', { body });
  expect(res.response.status).toBe(201);
  return res.data!;
}

/** A GET with these header lines as sent (an array value sends one line per item, which fetch cannot). */
function rawGet(path: string, headers: [string, string | string[]][]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${path}`, { agent: false });
    for (const [name, value] of headers) req.setHeader(name, value);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function verifyStatus(key: string, header: 'bearer' | 'x-api-key' = 'bearer') {
  return (await server.client(key, header).GET('/api/keys/verify')).response.status;
}

describe('POST /api/keys', () => {
  it('creates a key, returns its secret once, stores only its hash, and records an event without the secret', async () => {
    const res = await owner.api.POST('/api/keys', { body: { name: ' research agent ', hosted_agent_id: 'agent-7' } });
    expect(res.response.status).toBe(201);
    const key = res.data!;
    expect(key).toMatchObject({
      name: 'research agent',
      hosted_agent_id: 'agent-7',
      last_used_at: null,
      revoked_at: null,
      replaced_by_id: null,
    });
    expect(key.key).toMatch(/^gm_live_[0-9A-Za-z]{40}$/);
    expect(key.key.startsWith(key.prefix)).toBe(true);

    const row = await keyRow(key.id);
    expect(row).toMatchObject({ userId: owner.userId, keyHash: sha256(key.key), keyPrefix: key.prefix, hostedAgentId: 'agent-7' });
    expect(JSON.stringify(row)).not.toContain(key.key);

    const events = await eventsForResource(server.db, 'api_key', key.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created']);
    expect(events[0]).toMatchObject({ actorUserId: owner.userId, audienceUserIds: [owner.userId] });
    expect(JSON.stringify(events)).not.toContain(key.key);

    // The new key works, under both headers, and says whose it is.
    const verified = await server.client(key.key, 'x-api-key').GET('/api/keys/verify');
    expect(verified.data).toEqual({ user_id: owner.userId, hosted_agent_id: 'agent-7', api_key_id: key.id });
    expect(await verifyStatus(key.key, 'bearer')).toBe(200);
  });

  it('accepts a key without a hosted agent', async () => {
    const key = await createKey(owner, { name: 'plain' });
    expect(key.hosted_agent_id).toBeNull();
    expect((await keyRow(key.id))!.hostedAgentId).toBeNull();
  });

  it('rejects invalid input, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ name: 'ok', hosted_agent_id: 'has space' }, 'body.hosted_agent_id'],
      [{ name: 'ok', hosted_agent_id: 'a'.repeat(129) }, 'body.hosted_agent_id'],
      [{ name: 'ok', extra: 1 }, 'body.extra'],
    ];
    const before = (await server.db.select().from(apiKeys).where(eq(apiKeys.userId, owner.userId))).length;
    for (const [body, path] of cases) {
      const res = await owner.api.POST('/api/keys', { body: body as never });
      expect(res.response.status, JSON.stringify(body)).toBe(400);
      expect(res.error!.error.code).toBe('VALIDATION_FAILED');
      expect(res.error!.error.issues.map((i) => i.path)).toContain(path);
    }
    expect((await server.db.select().from(apiKeys).where(eq(apiKeys.userId, owner.userId))).length).toBe(before);
  });

  it('needs credentials (401), and a browser session: an API key gets 403', async () => {
    const none = await server.anonymous.POST('/api/keys', { body: { name: 'x' } });
    expect(none.response.status).toBe(401);
    expect(none.error!.error.code).toBe('UNAUTHENTICATED');

    const agent = await server.user('Agent Owner');
    const byKey = await agent.api.POST('/api/keys', { body: { name: 'x' } });
    expect(byKey.response.status).toBe(403);
    expect(byKey.error!.error.code).toBe('FORBIDDEN');
    expect((await server.db.select().from(apiKeys).where(eq(apiKeys.userId, agent.userId))).length).toBe(1);
  });

  it('refuses a cookie-authenticated request from another site', async () => {
    const evil = cookieClient(server, owner.cookie, { origin: 'http://evil.example' });
    const res = await evil.POST('/api/keys', { body: { name: 'csrf' } });
    expect(res.response.status).toBe(403);
    expect(res.error!.error.code).toBe('FORBIDDEN');

    const crossSite = cookieClient(server, owner.cookie, { 'sec-fetch-site': 'cross-site' });
    expect((await crossSite.POST('/api/keys', { body: { name: 'csrf' } })).response.status).toBe(403);

    const rows = await server.db.select().from(apiKeys).where(eq(apiKeys.name, 'csrf'));
    expect(rows).toEqual([]);

    // The same request from our own origin (as the dashboard sends it) works.
    const sameOrigin = cookieClient(server, owner.cookie, { origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect((await sameOrigin.POST('/api/keys', { body: { name: 'from the dashboard' } })).response.status).toBe(201);
  });

  it('gets 401 for a tampered or signed-out cookie', async () => {
    // Change the token itself (before the signature): the signature no longer matches.
    const tampered = cookieClient(
      server,
      owner.cookie.replace(/=(.)/, (_m, c: string) => `=${c === 'A' ? 'B' : 'A'}`),
    );
    expect((await tampered.POST('/api/keys', { body: { name: 'x' } })).response.status).toBe(401);
  });
});

describe('active keys per owner', () => {
  const CAP = MAX_ACTIVE_KEYS_PER_USER;

  it('says the cap in the spec', () => {
    const create = listOperations(loadSpec()).find((o) => o.operationId === 'createApiKey')!.operation;
    expect(create.description).toContain(`at most ${CAP} active keys`);
    expect(create.responses['409'].description).toContain(`${CAP} active keys`);
  });

  it(`caps them at ${CAP}: the next is 409 CONFLICT naming the cap; revoking one makes room, rotating needs none`, async () => {
    const capped = await signInDev(server, { displayName: 'Many Agents' });
    const keys = [];
    for (let i = 1; i <= CAP; i++) keys.push(await createKey(capped, { name: `agent ${i}` }));
    const over = await capped.api.POST('/api/keys', { body: { name: 'one too many' } });
    expect(over.response.status).toBe(409);
    expect(over.error!.error).toEqual({ code: 'CONFLICT', message: expect.stringContaining(`${CAP} active API keys`), issues: [] });
    expect(await server.db.select().from(apiKeys).where(eq(apiKeys.name, 'one too many'))).toEqual([]);

    // A rotation replaces one active key by another: allowed at the cap.
    const rotated = await capped.api.POST('/api/keys/{id}/rotate', { params: { path: { id: keys[0]!.id } } });
    expect(rotated.response.status).toBe(201);
    await capped.api.POST('/api/keys/{id}/revoke', { params: { path: { id: keys[1]!.id } } });
    await createKey(capped, { name: 'in the freed place' });
    expect((await capped.api.POST('/api/keys', { body: { name: 'one too many' } })).response.status).toBe(409);
    const active = (await server.db.select().from(apiKeys).where(eq(apiKeys.userId, capped.userId))).filter((k) => !k.revokedAt);
    expect(active).toHaveLength(CAP);
  });

  it('lets one of two concurrent creations take the last place', async () => {
    const racer = await signInDev(server, { displayName: 'Racer' });
    for (let i = 1; i < CAP; i++) await createKey(racer, { name: `agent ${i}` });
    const results = await Promise.all([1, 2].map((n) => racer.api.POST('/api/keys', { body: { name: `last ${n}` } })));
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409]);
    const active = (await server.db.select().from(apiKeys).where(eq(apiKeys.userId, racer.userId))).filter((k) => !k.revokedAt);
    expect(active).toHaveLength(CAP);
  });
});

describe('GET /api/keys', () => {
  let lister: BrowserSession;
  let keys: Awaited<ReturnType<typeof createKey>>[];
  beforeAll(async () => {
    lister = await signInDev(server, { displayName: 'Lister' });
    keys = [];
    for (const name of ['first', 'second', 'third']) keys.push(await createKey(lister, { name }));
  });

  it("lists the caller's own keys, newest first, never with the secret", async () => {
    const res = await lister.api.GET('/api/keys');
    expect(res.response.status).toBe(200);
    expect(res.data!.data.map((k) => k.name)).toEqual(['third', 'second', 'first']);
    expect(res.data!.next_cursor).toBeNull();
    expect(res.data!.data[0]).not.toHaveProperty('key');
    const text = JSON.stringify(res.data);
    for (const k of keys) expect(text).not.toContain(k.key);
  });

  it('works with an API key too, and shows when a key was last used', async () => {
    const res = await server.client(keys[0]!.key, 'x-api-key').GET('/api/keys');
    expect(res.response.status).toBe(200);
    expect(res.data!.data.map((k) => k.id)).toEqual([keys[2]!.id, keys[1]!.id, keys[0]!.id]);
    await expect.poll(async () => (await keyRow(keys[0]!.id))!.lastUsedAt).not.toBeNull();
    const again = await lister.api.GET('/api/keys');
    expect(again.data!.data.find((k) => k.id === keys[0]!.id)!.last_used_at).not.toBeNull();
  });

  it('pages with limit and cursor', async () => {
    const first = await lister.api.GET('/api/keys', { params: { query: { limit: 2 } } });
    expect(first.data!.data.map((k) => k.name)).toEqual(['third', 'second']);
    expect(first.data!.next_cursor).toEqual(expect.any(String));
    const second = await lister.api.GET('/api/keys', { params: { query: { limit: 2, cursor: first.data!.next_cursor! } } });
    expect(second.data!.data.map((k) => k.name)).toEqual(['first']);
    expect(second.data!.next_cursor).toBeNull();
  });

  it("never shows another user's keys", async () => {
    const other = await server.user('Other');
    const res = await other.api.GET('/api/keys');
    expect(res.data!.data.map((k) => k.id)).toEqual([other.apiKeyId]);
  });

  it('rejects a bad limit or cursor, naming the parameter', async () => {
    const limit = await lister.api.GET('/api/keys', { params: { query: { limit: 0 } } });
    expect(limit.response.status).toBe(400);
    expect(limit.error!.error.issues[0]!.path).toBe('query.limit');
    const cursor = await lister.api.GET('/api/keys', { params: { query: { cursor: 'nonsense' } } });
    expect(cursor.response.status).toBe(400);
    expect(cursor.error!.error.issues[0]!.path).toBe('query.cursor');
  });

  it('needs credentials', async () => {
    const res = await server.anonymous.GET('/api/keys');
    expect(res.response.status).toBe(401);
  });
});

describe('POST /api/keys/{id}/revoke', () => {
  it('revokes the key: it gets 401 from then on, under both headers', async () => {
    const key = await createKey(owner, { name: 'to revoke', hosted_agent_id: 'a1' });
    expect(await verifyStatus(key.key)).toBe(200);

    const res = await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: key.id } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ id: key.id, name: 'to revoke', revoked_at: expect.any(String), replaced_by_id: null });
    expect(res.data).not.toHaveProperty('key');

    expect((await keyRow(key.id))!.revokedAt).toBeInstanceOf(Date);
    expect(await verifyStatus(key.key, 'bearer')).toBe(401);
    expect(await verifyStatus(key.key, 'x-api-key')).toBe(401);
    const events = await eventsForResource(server.db, 'api_key', key.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(JSON.stringify(events)).not.toContain(key.key);
  });

  it('answers 409 INVALID_STATE for a key already revoked', async () => {
    const key = await createKey(owner);
    await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: key.id } } });
    const revokedAt = (await keyRow(key.id))!.revokedAt;
    const again = await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: key.id } } });
    expect(again.response.status).toBe(409);
    expect(again.error!.error.code).toBe('INVALID_STATE');
    expect(again.error!.error.message).toContain('revoked');
    expect((await keyRow(key.id))!.revokedAt).toEqual(revokedAt);
  });

  it("answers 404 for another user's key or an unknown id, and leaves the key alone", async () => {
    const other = await server.user('Victim');
    const res = await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: other.apiKeyId } } });
    expect(res.response.status).toBe(404);
    expect(res.error!.error.code).toBe('NOT_FOUND');
    expect((await keyRow(other.apiKeyId))!.revokedAt).toBeNull();
    expect(await verifyStatus(other.apiKey)).toBe(200);

    const unknown = await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' } } });
    expect(unknown.response.status).toBe(404);
  });

  it('rejects an id that is not a UUID', async () => {
    const res = await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: 'nope' } } });
    expect(res.response.status).toBe(400);
    expect(res.error!.error.issues[0]!.path).toBe('path.id');
  });

  it('needs a browser session: no credentials 401, an API key 403 (even its own)', async () => {
    const agent = await server.user('Self Revoker');
    expect((await server.anonymous.POST('/api/keys/{id}/revoke', { params: { path: { id: agent.apiKeyId } } })).response.status).toBe(401);
    const byKey = await agent.api.POST('/api/keys/{id}/revoke', { params: { path: { id: agent.apiKeyId } } });
    expect(byKey.response.status).toBe(403);
    expect((await keyRow(agent.apiKeyId))!.revokedAt).toBeNull();
  });
});

describe('POST /api/keys/{id}/rotate', () => {
  it('returns a new key with the same name and agent, and revokes the old one in the same step', async () => {
    const old = await createKey(owner, { name: 'rotating', hosted_agent_id: 'agent-r' });
    const res = await owner.api.POST('/api/keys/{id}/rotate', { params: { path: { id: old.id } } });
    expect(res.response.status).toBe(201);
    const fresh = res.data!;
    expect(fresh).toMatchObject({ name: 'rotating', hosted_agent_id: 'agent-r', revoked_at: null, replaced_by_id: null });
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.key).toMatch(/^gm_live_/);
    expect(fresh.key).not.toBe(old.key);

    const oldRow = await keyRow(old.id);
    expect(oldRow!.revokedAt).toBeInstanceOf(Date);
    expect(oldRow!.replacedById).toBe(fresh.id);
    expect(await verifyStatus(old.key)).toBe(401);
    const verified = await server.client(fresh.key).GET('/api/keys/verify');
    expect(verified.data).toEqual({ user_id: owner.userId, hosted_agent_id: 'agent-r', api_key_id: fresh.id });

    const events = await eventsForResource(server.db, 'api_key', old.id);
    expect(events.map((e) => e.type)).toEqual(['api_key.created', 'api_key.rotated']);
    expect(events[1]!.data).toMatchObject({ id: old.id, replaced_by_id: fresh.id });
    expect(JSON.stringify(events)).not.toContain(fresh.key);

    const listed = await owner.api.GET('/api/keys');
    expect(listed.data!.data.find((k) => k.id === old.id)).toMatchObject({ replaced_by_id: fresh.id, revoked_at: expect.any(String) });
  });

  it('lets exactly one of two concurrent rotations win', async () => {
    const old = await createKey(owner, { name: 'raced' });
    const results = await Promise.all([1, 2].map(() => owner.api.POST('/api/keys/{id}/rotate', { params: { path: { id: old.id } } })));
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409]);
    const rows = await server.db.select().from(apiKeys).where(eq(apiKeys.name, 'raced'));
    expect(rows.filter((r) => r.revokedAt === null)).toHaveLength(1);
  });

  it('answers 409 INVALID_STATE for a revoked key, and creates nothing', async () => {
    const key = await createKey(owner, { name: 'dead' });
    await owner.api.POST('/api/keys/{id}/revoke', { params: { path: { id: key.id } } });
    const res = await owner.api.POST('/api/keys/{id}/rotate', { params: { path: { id: key.id } } });
    expect(res.response.status).toBe(409);
    expect(res.error!.error.code).toBe('INVALID_STATE');
    expect(await server.db.select().from(apiKeys).where(eq(apiKeys.name, 'dead'))).toHaveLength(1);
  });

  it("answers 404 for another user's key, which keeps working", async () => {
    const other = await server.user('Not Yours');
    const res = await owner.api.POST('/api/keys/{id}/rotate', { params: { path: { id: other.apiKeyId } } });
    expect(res.response.status).toBe(404);
    expect(await verifyStatus(other.apiKey)).toBe(200);
  });

  it('rejects a bad id (400), no credentials (401) and an API key (403)', async () => {
    const bad = await owner.api.POST('/api/keys/{id}/rotate', { params: { path: { id: '123' } } });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error.issues[0]!.path).toBe('path.id');
    const agent = await server.user('Rotator');
    expect((await server.anonymous.POST('/api/keys/{id}/rotate', { params: { path: { id: agent.apiKeyId } } })).response.status).toBe(401);
    expect((await agent.api.POST('/api/keys/{id}/rotate', { params: { path: { id: agent.apiKeyId } } })).response.status).toBe(403);
    expect(await verifyStatus(agent.apiKey)).toBe(200);
  });
});

describe('GET /api/keys/verify', () => {
  it('accepts Bearer and x-api-key alike', async () => {
    const agent = await server.user('Verifier');
    for (const header of ['bearer', 'x-api-key'] as const) {
      const res = await server.client(agent.apiKey, header).GET('/api/keys/verify');
      expect(res.data).toEqual({ user_id: agent.userId, hosted_agent_id: null, api_key_id: agent.apiKeyId });
    }
  });

  it('refuses two different keys at once (x-api-key beside Bearer, or two Authorization lines): 401 naming both', async () => {
    const [agent, other] = await server.users('Two Keys', 'Other Key');
    const junk = `gm_live_${'J'.repeat(40)}`;
    const cases: [string, [string, string | string[]][]][] = [
      [
        'valid x-api-key, junk Bearer',
        [
          ['x-api-key', agent.apiKey],
          ['authorization', `Bearer ${junk}`],
        ],
      ],
      [
        'empty x-api-key, valid Bearer',
        [
          ['x-api-key', ''],
          ['authorization', `Bearer ${agent.apiKey}`],
        ],
      ],
      [
        "two owners' valid keys",
        [
          ['x-api-key', agent.apiKey],
          ['authorization', `Bearer ${other.apiKey}`],
        ],
      ],
      ['two Authorization lines', [['authorization', [`Bearer ${agent.apiKey}`, `Bearer ${junk}`]]]],
    ];
    for (const [what, headers] of cases) {
      const res = await rawGet('/api/keys/verify', headers);
      expect(res.status, what).toBe(401);
      expect(res.body.error, what).toEqual({
        code: 'UNAUTHENTICATED',
        message: expect.stringMatching(/x-api-key.*Authorization/),
        issues: [],
      });
    }
    // The same key under both headers is one credential; a session cookie beside a key is ignored (the key acts).
    const same = await rawGet('/api/keys/verify', [
      ['x-api-key', agent.apiKey],
      ['authorization', `Bearer ${agent.apiKey}`],
      ['cookie', owner.cookie],
    ]);
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ user_id: agent.userId, api_key_id: agent.apiKeyId });
  });

  it('answers 401 for unknown or malformed keys and no credentials, 403 for a session', async () => {
    expect(await verifyStatus(`gm_live_${'A'.repeat(40)}`)).toBe(401);
    expect(await verifyStatus('not-a-key', 'x-api-key')).toBe(401);
    expect((await server.anonymous.GET('/api/keys/verify')).response.status).toBe(401);
    const bySession = await owner.api.GET('/api/keys/verify');
    expect(bySession.response.status).toBe(403);
  });
});
