// Vouches over HTTP: POST /api/vouches records a permanent vouch (with vouch.received for the user
// vouched for), shown on the public profile and counted by worker recommendations; refused for
// oneself, for an unknown user, twice (also when two identical requests race), without
// credentials and with a broken body, each refusal changing nothing.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { signInDev } from '../helpers/session.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { events, vouches } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';

const server = testFileServer();

const vouch = (user: { api: User['api'] }, vouchedUserId: string, headers: Record<string, string> = {}) =>
  user.api.POST('/api/vouches', { body: { vouched_user_id: vouchedUserId }, headers });
const vouchRows = (vouchedUserId: string) => server.db.select().from(vouches).where(eq(vouches.vouchedUserId, vouchedUserId));
const vouchEvents = async (userId: string) =>
  (await eventsForResource(server.db, 'user', userId)).filter((e) => e.type === 'vouch.received');

describe('POST /api/vouches', () => {
  it('records the vouch, shows it on the profile and writes vouch.received for the user vouched for', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    const res = await vouch(ada, bob.userId);
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      voucher_user_id: ada.userId,
      voucher_display_name: 'Ada',
      vouched_user_id: bob.userId,
      vouched_at: expect.any(String),
    });

    const rows = await vouchRows(bob.userId);
    expect(rows).toEqual([{ voucherUserId: ada.userId, vouchedUserId: bob.userId, createdAt: new Date(res.data!.vouched_at) }]);
    const written = await vouchEvents(bob.userId);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      resourceType: 'user',
      resourceId: bob.userId,
      actorUserId: ada.userId,
      audienceUserIds: [bob.userId],
      data: res.data,
    });
    // Bob reads it in his event feed; Ada, who is not its audience, does not.
    const feed = await bob.api.GET('/api/events', { params: { query: { type: ['vouch.received'] } } });
    expect(feed.data!.data.map((e) => e.id)).toEqual([written[0]!.id]);
    const adaFeed = await ada.api.GET('/api/events', { params: { query: { type: ['vouch.received'] } } });
    expect(adaFeed.data!.data).toEqual([]);

    const viewer = await server.user('Viewer');
    const profile = await viewer.api.GET('/api/profile/{userId}', { params: { path: { userId: bob.userId } } });
    expect(profile.data).toMatchObject({
      vouched_by: [{ user_id: ada.userId, display_name: 'Ada', vouched_at: res.data!.vouched_at }],
      vouch_count: 1,
    });
    expect((await bob.api.GET('/api/profile/me')).data).toMatchObject({ vouch_count: 1, vouched_by: [{ user_id: ada.userId }] });
  });

  it('lists vouchers newest first, and counts them all', async () => {
    const subject = await server.user('Subject');
    const names = ['First', 'Second', 'Third'];
    for (const name of names) expect((await vouch(await server.user(name), subject.userId)).response.status).toBe(200);
    const profile = await subject.api.GET('/api/profile/{userId}', { params: { path: { userId: subject.userId } } });
    expect(profile.data!.vouched_by.map((v) => v.display_name)).toEqual(['Third', 'Second', 'First']);
    expect(profile.data!.vouch_count).toBe(3);
  });

  it('takes a browser session as well as a key', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    const session = await signInDev(server, { userId: ada.userId });
    const res = await session.api.POST('/api/vouches', { body: { vouched_user_id: bob.userId } });
    expect(res.response.status).toBe(200);
    expect(await vouchRows(bob.userId)).toHaveLength(1);
  });

  it('refuses a vouch for oneself with 400 naming the field, and records nothing', async () => {
    const ada = await server.user('Ada');
    const res = await vouch(ada, ada.userId);
    expectInvalid(res, 'body.vouched_user_id');
    expect((res.error as { error: { message: string } }).error.message).toBe('body.vouched_user_id: you cannot vouch for yourself');
    expect(await vouchRows(ada.userId)).toEqual([]);
    expect(await vouchEvents(ada.userId)).toEqual([]);
  });

  it('answers 404 for an unknown user', async () => {
    const ada = await server.user('Ada');
    const nobody = newId();
    expectError(await vouch(ada, nobody), 404, 'NOT_FOUND', /user not found/);
    expect(await vouchRows(nobody)).toEqual([]);
  });

  it('refuses a second vouch for the same user with 409 CONFLICT (a vouch is permanent)', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    const first = await vouch(ada, bob.userId);
    expect(first.response.status).toBe(200);
    expectError(await vouch(ada, bob.userId), 409, 'CONFLICT', /already vouched/);
    expect(await vouchRows(bob.userId)).toHaveLength(1);
    expect(await vouchEvents(bob.userId)).toHaveLength(1);
    // Vouching back is another vouch.
    expect((await vouch(bob, ada.userId)).response.status).toBe(200);
  });

  it('of two identical requests at once, records one vouch with one event; the other gets 409', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    const results = await Promise.all(Array.from({ length: 4 }, () => vouch(ada, bob.userId)));
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409, 409, 409]);
    for (const r of results.filter((x) => x.response.status === 409)) expectError(r, 409, 'CONFLICT');
    expect(await vouchRows(bob.userId)).toHaveLength(1);
    expect(await vouchEvents(bob.userId)).toHaveLength(1);
  });

  it('replays the first answer for a repeated Idempotency-Key', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    const first = await vouch(ada, bob.userId, { 'idempotency-key': 'vouch-once' });
    const again = await vouch(ada, bob.userId, { 'idempotency-key': 'vouch-once' });
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(await vouchRows(bob.userId)).toHaveLength(1);
  });

  it('refuses a broken body with 400 and no credentials with 401, changing nothing', async () => {
    const [ada, bob] = await server.users('Ada', 'Bob');
    expectInvalid(await ada.api.POST('/api/vouches', { body: {} as never }), 'body.vouched_user_id');
    expectInvalid(await ada.api.POST('/api/vouches', { body: { vouched_user_id: 'bob' } }), 'body.vouched_user_id');
    expectInvalid(await ada.api.POST('/api/vouches', { body: { vouched_user_id: bob.userId, extra: 1 } as never }), 'body.extra');
    expectError(await server.anonymous.POST('/api/vouches', { body: { vouched_user_id: bob.userId } }), 401, 'UNAUTHENTICATED');
    expect(await vouchRows(bob.userId)).toEqual([]);
    const written = await server.db
      .select()
      .from(events)
      .where(and(eq(events.type, 'vouch.received'), eq(events.resourceId, bob.userId)));
    expect(written).toEqual([]);
  });
});

describe('vouches in worker recommendations', () => {
  it('count for the worker vouched for (the recommendations read the same table)', async () => {
    const [client, worker] = await server.users('Client', 'Worker');
    await worker.api.PATCH('/api/profile/me', { body: { skills: ['elixir'] } });
    const gig = await client.api.POST('/api/gigs', { body: { title: 'Elixir service', tags: ['elixir'] } });
    expect((await vouch(client, worker.userId)).response.status).toBe(200);
    const res = await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: gig.data!.id } } });
    const row = res.data!.data.find((w) => w.user_id === worker.userId)!;
    expect(row).toMatchObject({ vouch_count: 1, score_components: { vouches: 0.25 } });
    expect(row.match_reasons).toContain('vouched for by 1 person');
  });
});
