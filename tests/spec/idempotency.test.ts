// Idempotency-Key on POST, with Stripe's semantics (docs/architecture.md §3), on POST /api/gigs: a retry replays
// the first response and does nothing again; another request with the key is refused; while the
// first is running, a retry gets 409; failures of validation are not recorded.
import { and, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, events, gigs, idempotencyKeys } from '../../db/schema.ts';
import { cookieClient, signInDev } from '../helpers/session.ts';
import type { components } from '../../src/generated/api.d.ts';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';

const server = testFileServer();

type GigBody = { title: string; description?: string; compensation_min_cents?: number | null; compensation_max_cents?: number | null };

const createGig = (user: User, body: GigBody, key?: string) =>
  user.api.POST('/api/gigs', { body, params: { header: key === undefined ? {} : { 'Idempotency-Key': key } } });

async function gigCount(userId: string): Promise<number> {
  const [row] = await server.db.select({ n: count() }).from(gigs).where(eq(gigs.clientUserId, userId));
  return row!.n;
}

async function createdEvents(gigId: string): Promise<number> {
  const [row] = await server.db
    .select({ n: count() })
    .from(events)
    .where(and(eq(events.type, 'gig.created'), eq(events.resourceId, gigId)));
  return row!.n;
}

describe('Idempotency-Key on POST /api/gigs', () => {
  it('replays the first response for the same key and body, and creates one gig', async () => {
    const alice = await server.user('Alice');
    const body = { title: 'Logo design', description: 'A fox, in orange' };
    const first = await createGig(alice, body, 'create-logo-1');
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();

    const again = await createGig(alice, body, 'create-logo-1');
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);

    expect(await gigCount(alice.userId)).toBe(1);
    expect(await createdEvents(first.data!.id)).toBe(1);
  });

  it('treats the same JSON with its keys in another order as the same request, and replays', async () => {
    const carol = await server.user('Carol');
    const send = (json: string) =>
      fetch(`${server.url}/api/gigs`, {
        method: 'POST',
        body: json,
        headers: { authorization: `Bearer ${carol.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'reordered-1' },
      });
    const first = await send('{"title":"Poster","compensation_min_cents":100,"compensation_max_cents":200}');
    expect(first.status).toBe(201);
    const again = await send('{ "compensation_max_cents": 200, "title": "Poster", "compensation_min_cents": 100 }');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await gigCount(carol.userId)).toBe(1);
    // A different value is still a different request.
    expect((await send('{"title":"Poster","compensation_min_cents":100,"compensation_max_cents":300}')).status).toBe(422);
  });

  it('refuses the same key with another body (422 IDEMPOTENCY_KEY_REUSED) and creates nothing', async () => {
    const bob = await server.user('Bob');
    expect((await createGig(bob, { title: 'First' }, 'bob-key')).response.status).toBe(201);
    const other = await createGig(bob, { title: 'Second' }, 'bob-key');
    expect(other.response.status).toBe(422);
    expect(other.error?.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await gigCount(bob.userId)).toBe(1);
  });

  it('refuses the same key on another route (422), which then does nothing', async () => {
    const [carol, dave] = await server.users('Carol', 'Dave');
    const gig = await createGig(carol, { title: 'Translate a page' });
    expect(gig.response.status).toBe(201);
    expect((await createGig(dave, { title: 'Dave’s gig' }, 'dave-key')).response.status).toBe(201);

    const apply = await dave.api.POST('/api/gigs/{id}/applications', {
      params: { path: { id: gig.data!.id }, header: { 'Idempotency-Key': 'dave-key' } },
      body: { message: 'I translate' },
    });
    expect(apply.response.status).toBe(422);
    expect(apply.error?.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const list = await carol.api.GET('/api/gigs/{id}/applications', { params: { path: { id: gig.data!.id } } });
    expect(list.data?.data).toEqual([]);
  });

  it('makes exactly one gig from concurrent requests with the same key; the others replay it or get 409', async () => {
    const erin = await server.user('Erin');
    const body = { title: 'Concurrent' };
    const results = await Promise.all(Array.from({ length: 5 }, () => createGig(erin, body, 'erin-concurrent')));

    expect(await gigCount(erin.userId)).toBe(1);
    const created = results.filter((r) => r.response.status === 201);
    const originals = created.filter((r) => r.response.headers.get('idempotent-replayed') === null);
    expect(originals).toHaveLength(1);
    for (const r of created) expect(r.data).toEqual(originals[0]!.data);
    for (const r of results.filter((x) => x.response.status !== 201)) {
      expect(r.response.status).toBe(409);
      expect(r.error?.error.code).toBe('CONFLICT');
    }

    // Once the first has finished, a retry replays it.
    const later = await createGig(erin, body, 'erin-concurrent');
    expect(later.response.headers.get('idempotent-replayed')).toBe('true');
    expect(later.data).toEqual(originals[0]!.data);
  });

  it('keeps two users with the same key value apart', async () => {
    const [frank, grace] = await server.users('Frank', 'Grace');
    const a = await createGig(frank, { title: 'Same key' }, 'shared-value');
    const b = await createGig(grace, { title: 'Same key' }, 'shared-value');
    expect(a.response.status).toBe(201);
    expect(b.response.status).toBe(201);
    expect(b.response.headers.get('idempotent-replayed')).toBeNull();
    expect(b.data!.id).not.toBe(a.data!.id);
    expect(b.data!.client_user_id).toBe(grace.userId);
    expect(await gigCount(frank.userId)).toBe(1);
    expect(await gigCount(grace.userId)).toBe(1);
  });

  it('does not record a request that fails validation: the corrected one may reuse the key', async () => {
    const heidi = await server.user('Heidi');
    // Rejected by the schema (no title).
    const invalid = await heidi.api.POST('/api/gigs', {
      body: {} as components['schemas']['GigCreate'],
      params: { header: { 'Idempotency-Key': 'heidi-key' } },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error.issues.map((i) => i.path)).toContain('body.title');
    // Rejected by a rule of the handler (min above max).
    const inverted = await createGig(heidi, { title: 'Range', compensation_min_cents: 900, compensation_max_cents: 100 }, 'heidi-key');
    expect(inverted.response.status).toBe(400);
    expect(inverted.error?.error.code).toBe('VALIDATION_FAILED');

    const fixed = await createGig(heidi, { title: 'Range', compensation_min_cents: 100, compensation_max_cents: 900 }, 'heidi-key');
    expect(fixed.response.status).toBe(201);
    expect(fixed.response.headers.get('idempotent-replayed')).toBeNull();
    expect(await gigCount(heidi.userId)).toBe(1);
  });

  it('without a key, makes a gig per request', async () => {
    const ivan = await server.user('Ivan');
    const a = await createGig(ivan, { title: 'Twice' });
    const b = await createGig(ivan, { title: 'Twice' });
    expect(a.response.status).toBe(201);
    expect(b.response.status).toBe(201);
    expect(b.data!.id).not.toBe(a.data!.id);
    expect(await gigCount(ivan.userId)).toBe(2);
  });

  it('rejects a malformed key with 400 naming header.idempotency-key, and creates nothing', async () => {
    const judy = await server.user('Judy');
    for (const key of ['k'.repeat(300), '', 'tab\there', 'naïve']) {
      const res = await fetch(`${server.url}/api/gigs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${judy.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ title: 'Bad key' }),
      });
      const body = (await res.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(body.error.code).toBe('VALIDATION_FAILED');
      expect(body.error.issues.map((i) => i.path)).toContain('header.idempotency-key');
      // The spec's pattern says it (Ajv refuses first), in words rather than as the expression.
      if (key !== '')
        expect(body.error.issues, JSON.stringify(key)).toContainEqual({
          path: 'header.idempotency-key',
          message: 'must be 1 to 255 printable ASCII characters, without spaces',
        });
    }
    expect(await gigCount(judy.userId)).toBe(0);
  });
});

describe('Idempotency-Key on a response that shows a secret once', () => {
  it('makes one key, keeps no secret, and answers a retry with 409 instead of the secret', async () => {
    const owner = await signInDev(server, { displayName: 'Secret Keeper' });
    const api = cookieClient(server, owner.cookie);
    const send = () => api.POST('/api/keys', { body: { name: 'agent' }, params: { header: { 'Idempotency-Key': 'key-create-1' } } });

    const first = await send();
    expect(first.response.status).toBe(201);
    expect(first.data!.key).toMatch(/^gm_live_/);

    const retry = await send();
    expect(retry.response.status).toBe(409);
    expect((retry.error as { error: { code: string; message: string } }).error).toMatchObject({ code: 'CONFLICT' });
    expect((retry.error as { error: { message: string } }).error.message).toMatch(/already succeeded/);

    const keys = await server.db.select().from(apiKeys).where(eq(apiKeys.userId, owner.userId));
    expect(keys.filter((k) => k.name === 'agent')).toHaveLength(1);
    const [record] = await server.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, owner.userId), eq(idempotencyKeys.key, 'key-create-1')));
    expect(record!.state).toBe('completed');
    expect(record!.responseBody).toBeNull();
    // The secret is nowhere in the stored record.
    expect(JSON.stringify(record)).not.toContain(first.data!.key);
  });
});
