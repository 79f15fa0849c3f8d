// GET /api/events: the caller's events, newest first or forward after one they saw, filtered by
// type and resource; only the events the caller is in the audience of. Every item is checked
// against the spec's Event union by the client.
import { beforeAll, describe, expect, it } from 'vitest';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { signInDev } from '../helpers/session.ts';

const server = testFileServer();
let client: User;
let worker: User;
let stranger: User;
let gigId: string;

beforeAll(async () => {
  [client, worker, stranger] = await server.users('Feed Client', 'Feed Worker', 'Feed Stranger');
  gigId = (await client.api.POST('/api/gigs', { body: { title: 'Rust parser', tags: ['rust'] } })).data!.id;
  await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: gigId } }, body: { description: 'Parse logs.' } });
  await worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: gigId } }, body: { message: 'Me!' } });
});

const feed = (user: User, query: Record<string, string | number> = {}) => user.api.GET('/api/events', { params: { query } });

describe('GET /api/events', () => {
  it("lists the caller's events newest first, each as a typed event of the catalog", async () => {
    const res = await feed(client);
    expect(res.response.status).toBe(200);
    // The operator CLI's way of making a user (the test helper's) writes api_key.created first.
    expect(res.data!.data.map((e) => e.type)).toEqual(['application.submitted', 'gig.updated', 'gig.created', 'api_key.created']);
    const [submitted, , created] = res.data!.data;
    expect(created).toMatchObject({ type: 'gig.created', data: { id: gigId, title: 'Rust parser' } });
    expect(submitted).toMatchObject({ type: 'application.submitted', data: { gig_id: gigId, worker_user_id: worker.userId } });
    expect(res.data!.next_cursor).toBeNull();
  });

  it("shows each user only their own audience's events", async () => {
    // The worker hears of their application, not of the client's gig edits; a stranger of nothing.
    expect((await feed(worker)).data!.data.map((e) => e.type)).toEqual(['application.submitted', 'api_key.created']);
    expect((await feed(stranger)).data!.data.map((e) => e.type)).toEqual(['api_key.created']);
    expect((await feed(stranger, { resource_id: gigId })).data!.data).toEqual([]);
  });

  it('reads forward after an event, oldest first, paging with next_cursor', async () => {
    const all = (await feed(client)).data!.data.reverse(); // oldest first
    const first = await feed(client, { after: all[0]!.id, limit: 1 });
    expect(first.data!.data.map((e) => e.id)).toEqual([all[1]!.id]);
    const second = await feed(client, { cursor: first.data!.next_cursor!, limit: 2 });
    expect(second.data!.data.map((e) => e.id)).toEqual([all[2]!.id, all[3]!.id]);
    expect(second.data!.next_cursor).toBeNull();
    // Nothing new after the latest: an empty page, which a poller asks again later.
    expect((await feed(client, { after: all[3]!.id })).data).toEqual({ data: [], next_cursor: null });
  });

  it('pages newest first with next_cursor', async () => {
    const page1 = await feed(client, { limit: 3 });
    expect(page1.data!.data).toHaveLength(3);
    const page2 = await feed(client, { limit: 3, cursor: page1.data!.next_cursor! });
    expect(page2.data!.data.map((e) => e.type)).toEqual(['api_key.created']);
    expect(page2.data!.next_cursor).toBeNull();
  });

  it('filters by type and by resource', async () => {
    expect((await feed(client, { type: 'gig.created,gig.updated' })).data!.data.map((e) => e.type)).toEqual(['gig.updated', 'gig.created']);
    const byGig = await feed(client, { resource_id: gigId });
    expect(byGig.data!.data.map((e) => e.type)).toEqual(['gig.updated', 'gig.created']);
  });

  it('takes the types comma-separated (style form, explode false), or as the parameter repeated', async () => {
    const types = async (query: string) => {
      const res = await fetch(`${server.url}/api/events?${query}`, { headers: { authorization: `Bearer ${client.apiKey}` } });
      expect(res.status, query).toBe(200);
      return ((await res.json()) as { data: { type: string }[] }).data.map((e) => e.type);
    };
    expect(await types('type=gig.created,gig.updated')).toEqual(['gig.updated', 'gig.created']);
    expect(await types('type=gig.created&type=gig.updated')).toEqual(['gig.updated', 'gig.created']);
    expect(await types('type=gig.created%2Cgig.updated')).toEqual(['gig.updated', 'gig.created']);
  });

  it('refuses invalid input with 400 naming it', async () => {
    const unknown = await feed(client, { type: 'gig.exploded' });
    expectInvalid(unknown, 'query.type[0]');
    // The catalog is long: the message names how many types there are, not all of them.
    expect((unknown.error as { error: { message: string } }).error.message).toMatch(
      /^query\.type\[0\] must be one of the \d+ values the spec lists \(gig\.created, gig\.updated, gig\.published, \.\.\.\)$/,
    );
    expectInvalid(await feed(client, { type: 'gig.created,' }), 'query.type[1]');
    expectInvalid(await feed(client, { type: '' }), 'query.type');
    expectInvalid(await feed(client, { type: Array.from({ length: 21 }, () => 'gig.created').join(',') }), 'query.type');
    expectInvalid(await feed(client, { after: 'not-an-id' }), 'query.after');
    expectInvalid(await feed(client, { resource_id: '42' }), 'query.resource_id');
    expectInvalid(await feed(client, { cursor: 'nope' }), 'query.cursor');
    const all = (await feed(client)).data!.data;
    expectInvalid(await feed(client, { after: all[0]!.id, cursor: (await feed(client, { limit: 1 })).data!.next_cursor! }), 'query.cursor');
    expectInvalid(await feed(client, { limit: 0 }), 'query.limit');
  });

  it('needs credentials', async () => {
    expectError(await server.anonymous.GET('/api/events', {}), 401, 'UNAUTHENTICATED');
  });
});

describe('the actor of an event', () => {
  it('names the API key and its hosted agent that made a change; no key for the browser; nobody for the platform', async () => {
    const owner = await server.user('Actor Owner');
    const session = await signInDev(server, { userId: owner.userId });
    const key = (await session.api.POST('/api/keys', { body: { name: 'drafting agent', hosted_agent_id: 'agent-42' } })).data!;
    const agent = server.client(key.key);
    const byAgent = (await agent.POST('/api/gigs', { body: { title: 'Drafted by an agent' } })).data!;
    const byOwner = (await session.api.POST('/api/gigs', { body: { title: 'Written by the owner' } })).data!;
    const byFirstKey = (await owner.api.POST('/api/gigs', { body: { title: 'By the first key' } })).data!;

    const events = (await feed(owner)).data!.data;
    const about = (id: string) => events.find((e) => e.type === 'gig.created' && e.data.id === id)!;
    expect(about(byAgent.id).actor).toEqual({ user_id: owner.userId, api_key_id: key.id, hosted_agent_id: 'agent-42' });
    expect(about(byOwner.id).actor).toEqual({ user_id: owner.userId, api_key_id: null, hosted_agent_id: null });
    expect(about(byFirstKey.id).actor).toEqual({ user_id: owner.userId, api_key_id: owner.apiKeyId, hosted_agent_id: null });
    // The key made in the browser names the session; the first key, made by the operator CLI, nobody.
    const keyEvents = events.filter((e) => e.type === 'api_key.created');
    expect(keyEvents.find((e) => e.data.id === key.id)!.actor).toEqual({ user_id: owner.userId, api_key_id: null, hosted_agent_id: null });
    expect(keyEvents.find((e) => e.data.id === owner.apiKeyId)!.actor).toBeNull();

    // The other party sees the same actor on an event of theirs: which agent applied.
    const applied = await agent.POST('/api/gigs/{id}/applications', { params: { path: { id: gigId } }, body: { message: 'Via agent' } });
    expect(applied.response.status).toBe(201);
    const seen = (await feed(client, { type: 'application.submitted', resource_id: applied.data!.id })).data!.data;
    expect(seen.map((e) => e.actor)).toEqual([{ user_id: owner.userId, api_key_id: key.id, hosted_agent_id: 'agent-42' }]);
  });
});
