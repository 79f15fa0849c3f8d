import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { applications, gigs, negotiations } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { expectInvalid, expectError } from '../helpers/expect-error.ts';

const server = testFileServer();
let client: User;
let other: User;

beforeAll(async () => {
  [client, other] = await server.users('Client', 'Other');
});

async function createGig(user: User, body: Record<string, unknown> = {}) {
  const res = await user.api.POST('/api/gigs', { body: { title: 'A gig', ...body } as never });
  expect(res.response.status).toBe(201);
  return res.data!;
}

const gigRow = async (id: string) => (await server.db.select().from(gigs).where(eq(gigs.id, id)))[0];
const eventTypes = async (id: string) => (await eventsForResource(server.db, 'gig', id)).map((e) => e.type);

/** An external gig, as a connector would store it: no client. */
async function insertExternalGig(status: 'open' | 'draft' = 'open') {
  const id = newId();
  await server.db
    .insert(gigs)
    .values({ id, clientUserId: null, title: 'Imported', status, source: 'remoteok', externalId: id, url: 'https://example.com/jobs/1' });
  return id;
}

describe('POST /api/gigs', () => {
  it('publishes an open gig, normalizes tags, defaults compensation from the rate, writes gig.created', async () => {
    const res = await client.api.POST('/api/gigs', {
      body: {
        title: '  Build a Rust CLI  ',
        description: 'Parse logs',
        scope: 'One binary',
        rate_cents: 8000,
        tags: [' Rust', 'rust', 'CLI '],
      },
    });
    expect(res.response.status).toBe(201);
    const gig = res.data!;
    expect(gig).toMatchObject({
      client_user_id: client.userId,
      title: 'Build a Rust CLI',
      description: 'Parse logs',
      scope: 'One binary',
      rate_cents: 8000,
      compensation_type: 'hourly',
      compensation_min_cents: null,
      compensation_max_cents: null,
      currency: 'USD',
      tags: ['rust', 'cli'],
      status: 'open',
      source: 'native',
      external_id: null,
      url: null,
    });
    const row = await gigRow(gig.id);
    expect(row).toMatchObject({
      clientUserId: client.userId,
      status: 'open',
      tags: ['rust', 'cli'],
      rateCents: 8000,
      compensationType: 'hourly',
    });
    const events = await eventsForResource(server.db, 'gig', gig.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'gig.created', actorUserId: client.userId, audienceUserIds: [client.userId], data: gig });
  });

  it('keeps a draft, and takes compensation fields as given', async () => {
    const gig = await createGig(client, {
      status: 'draft',
      compensation_type: 'fixed',
      compensation_min_cents: 1000,
      compensation_max_cents: 1000,
      currency: 'EUR',
    });
    expect(gig).toMatchObject({
      status: 'draft',
      rate_cents: null,
      compensation_type: 'fixed',
      compensation_min_cents: 1000,
      compensation_max_cents: 1000,
      currency: 'EUR',
    });
    expect((await gigRow(gig.id))!.status).toBe('draft');
  });

  it('says unknown compensation when no rate is given', async () => {
    expect((await createGig(client)).compensation_type).toBe('unknown');
  });

  it.each([
    [{}, 'body.title'],
    [{ title: '   ' }, 'body.title'],
    [{ title: 'x'.repeat(201) }, 'body.title'],
    [{ title: 'ok', description: 'x'.repeat(20001) }, 'body.description'],
    [{ title: 'ok', scope: 'x'.repeat(5001) }, 'body.scope'],
    [{ title: 'ok', rate_cents: -1 }, 'body.rate_cents'],
    [{ title: 'ok', rate_cents: 12.5 }, 'body.rate_cents'],
    [{ title: 'ok', rate_cents: 100000001 }, 'body.rate_cents'],
    [{ title: 'ok', status: 'closed' }, 'body.status'],
    [{ title: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags'],
    [{ title: 'ok', tags: ['x'.repeat(41)] }, 'body.tags[0]'],
    [{ title: 'ok', tags: ['ok', ' '] }, 'body.tags[1]'],
    [{ title: 'ok', currency: 'usd' }, 'body.currency'],
    [{ title: 'ok', compensation_type: 'barter' }, 'body.compensation_type'],
    [{ title: 'ok', compensation_min_cents: -5 }, 'body.compensation_min_cents'],
    [{ title: 'ok', compensation_min_cents: 500, compensation_max_cents: 100 }, 'body.compensation_max_cents'],
    [{ title: 'ok', client_user_id: newId() }, 'body.client_user_id'],
  ])('refuses %j naming %s', async (body, path) => {
    const before = (await server.db.select().from(gigs)).length;
    expectInvalid(await client.api.POST('/api/gigs', { body: body as never }), path);
    expect((await server.db.select().from(gigs)).length).toBe(before);
  });

  it('needs credentials', async () => {
    expectError(await server.anonymous.POST('/api/gigs', { body: { title: 'x' } }), 401, 'UNAUTHENTICATED');
  });

  it('replays a retry with the same Idempotency-Key instead of publishing twice', async () => {
    const headers = { 'Idempotency-Key': `gig-${newId()}` };
    const first = await client.api.POST('/api/gigs', { body: { title: 'Once' }, params: { header: headers } });
    const again = await client.api.POST('/api/gigs', { body: { title: 'Once' }, params: { header: headers } });
    expect(again.response.status).toBe(201);
    expect(again.data!.id).toBe(first.data!.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expectError(
      await client.api.POST('/api/gigs', { body: { title: 'Different' }, params: { header: headers } }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
});

describe('GET /api/gigs/{id}', () => {
  it('shows an open gig to anyone signed in, and a draft only to its client', async () => {
    const open = await createGig(client);
    const draft = await createGig(client, { status: 'draft' });
    const seen = await other.api.GET('/api/gigs/{id}', { params: { path: { id: open.id } } });
    expect(seen.response.status).toBe(200);
    expect(seen.data).toEqual(open);
    expect((await client.api.GET('/api/gigs/{id}', { params: { path: { id: draft.id } } })).data).toEqual(draft);
    expectError(await other.api.GET('/api/gigs/{id}', { params: { path: { id: draft.id } } }), 404, 'NOT_FOUND');
  });

  it('shows external gigs, with their source', async () => {
    const id = await insertExternalGig();
    const res = await other.api.GET('/api/gigs/{id}', { params: { path: { id } } });
    expect(res.data).toMatchObject({ client_user_id: null, source: 'remoteok', external_id: id, url: 'https://example.com/jobs/1' });
  });

  it('answers 404 for an unknown id, 400 for a malformed one, 401 without credentials', async () => {
    expectError(await client.api.GET('/api/gigs/{id}', { params: { path: { id: newId() } } }), 404, 'NOT_FOUND');
    expectInvalid(await client.api.GET('/api/gigs/{id}', { params: { path: { id: 'nope' } } }), 'path.id');
    const gig = await createGig(client);
    expectError(await server.anonymous.GET('/api/gigs/{id}', { params: { path: { id: gig.id } } }), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/gigs', () => {
  it('owner=me lists all my gigs newest first, any status, filterable, page by page', async () => {
    const me = await server.user('Lister');
    const a = await createGig(me, { title: 'a' });
    const b = await createGig(me, { title: 'b', status: 'draft' });
    const c = await createGig(me, { title: 'c' });
    await me.api.PATCH('/api/gigs/{id}', { params: { path: { id: c.id } }, body: { status: 'paused' } });
    await createGig(other, { title: 'not mine' });

    const first = await me.api.GET('/api/gigs', { params: { query: { owner: 'me', limit: 2 } } });
    expect(first.response.status).toBe(200);
    expect(first.data!.data.map((g) => g.id)).toEqual([c.id, b.id]);
    expect(first.data!.next_cursor).toEqual(expect.any(String));
    const second = await me.api.GET('/api/gigs', { params: { query: { owner: 'me', limit: 2, cursor: first.data!.next_cursor! } } });
    expect(second.data).toEqual({ data: [expect.objectContaining({ id: a.id })], next_cursor: null });

    const drafts = await me.api.GET('/api/gigs', { params: { query: { owner: 'me', status: 'draft' } } });
    expect(drafts.data!.data.map((g) => g.id)).toEqual([b.id]);
  });

  it("owner=any lists open gigs by default, never another user's draft", async () => {
    const mine = await createGig(client, { title: 'visible' });
    const draft = await createGig(client, { title: 'hidden', status: 'draft' });
    const paused = await createGig(client, { title: 'paused' });
    await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: paused.id } }, body: { status: 'paused' } });
    const external = await insertExternalGig();

    const open = await other.api.GET('/api/gigs', { params: { query: { limit: 100 } } });
    const ids = open.data!.data.map((g) => g.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(external);
    expect(ids).not.toContain(draft.id);
    expect(ids).not.toContain(paused.id);
    expect(open.data!.data.every((g) => g.status === 'open')).toBe(true);

    const pausedList = await other.api.GET('/api/gigs', { params: { query: { owner: 'any', status: 'paused', limit: 100 } } });
    expect(pausedList.data!.data.map((g) => g.id)).toContain(paused.id);
    const drafts = await other.api.GET('/api/gigs', { params: { query: { status: 'draft', limit: 100 } } });
    expect(drafts.data!.data.map((g) => g.id)).not.toContain(draft.id);
    const ownDrafts = await client.api.GET('/api/gigs', { params: { query: { status: 'draft', limit: 100 } } });
    expect(ownDrafts.data!.data.map((g) => g.id)).toContain(draft.id);
  });

  it.each([
    [{ limit: 0 }, 'query.limit'],
    [{ limit: 101 }, 'query.limit'],
    [{ owner: 'everyone' }, 'query.owner'],
    [{ status: 'archived' }, 'query.status'],
    [{ cursor: 'garbage' }, 'query.cursor'],
  ])('refuses %j naming %s', async (query, path) => {
    expectInvalid(await client.api.GET('/api/gigs', { params: { query: query as never } }), path);
  });

  it('needs credentials', async () => {
    expectError(await server.anonymous.GET('/api/gigs'), 401, 'UNAUTHENTICATED');
  });
});

describe('PATCH /api/gigs/{id}', () => {
  const patch = (user: User, id: string, body: Record<string, unknown>) =>
    user.api.PATCH('/api/gigs/{id}', { params: { path: { id } }, body: body as never });

  it('changes fields, writes gig.updated', async () => {
    const gig = await createGig(client, { rate_cents: 5000 });
    const res = await patch(client, gig.id, { title: 'New title', tags: ['Go', 'go'], rate_cents: null, compensation_max_cents: 9000 });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      id: gig.id,
      title: 'New title',
      tags: ['go'],
      rate_cents: null,
      compensation_max_cents: 9000,
      status: 'open',
    });
    expect(res.data!.updated_at >= gig.updated_at).toBe(true);
    expect(await gigRow(gig.id)).toMatchObject({ title: 'New title', tags: ['go'], rateCents: null, compensationMaxCents: 9000 });
    const events = await eventsForResource(server.db, 'gig', gig.id);
    expect(events.map((e) => e.type)).toEqual(['gig.created', 'gig.updated']);
    expect(events[1]!.data).toEqual(res.data);
  });

  it('walks the lifecycle: publish, pause, resume, close, each with its event', async () => {
    const gig = await createGig(client, { status: 'draft' });
    const published = await patch(client, gig.id, { status: 'open' });
    expect(published.data!.status).toBe('open');
    expect(published.data!.posted_at > gig.posted_at).toBe(true);
    expect((await patch(client, gig.id, { status: 'paused' })).data!.status).toBe('paused');
    expect((await patch(client, gig.id, { status: 'open' })).data!.status).toBe('open');
    expect((await patch(client, gig.id, { status: 'closed' })).data!.status).toBe('closed');
    expect((await gigRow(gig.id))!.status).toBe('closed');
    expect(await eventTypes(gig.id)).toEqual(['gig.created', 'gig.published', 'gig.paused', 'gig.resumed', 'gig.closed']);
  });

  it('writes both events when one request changes fields and status', async () => {
    const gig = await createGig(client);
    const res = await patch(client, gig.id, { scope: 'Smaller', status: 'paused' });
    expect(res.data).toMatchObject({ scope: 'Smaller', status: 'paused' });
    expect(await eventTypes(gig.id)).toEqual(['gig.created', 'gig.updated', 'gig.paused']);
  });

  it('changes nothing when asked for the current status', async () => {
    const gig = await createGig(client);
    const res = await patch(client, gig.id, { status: 'open' });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual(gig);
    expect(await eventTypes(gig.id)).toEqual(['gig.created']);
  });

  it('refuses moves the lifecycle does not allow, naming the status', async () => {
    const gig = await createGig(client);
    expectError(await patch(client, gig.id, { status: 'draft' }), 409, 'INVALID_STATE', /open/);
    const draft = await createGig(client, { status: 'draft' });
    expectError(await patch(client, draft.id, { status: 'paused' }), 409, 'INVALID_STATE', /draft/);
    await patch(client, gig.id, { status: 'closed' });
    expectError(await patch(client, gig.id, { status: 'open' }), 409, 'INVALID_STATE', /closed/);
    expectError(await patch(client, gig.id, { title: 'Edit after close' }), 409, 'INVALID_STATE', /closed/);
    expect(await gigRow(gig.id)).toMatchObject({ status: 'closed', title: 'A gig' });
    expect(await eventTypes(gig.id)).toEqual(['gig.created', 'gig.closed']);
  });

  it.each([
    [{}, 'body'],
    [{ title: '' }, 'body.title'],
    [{ status: 'archived' }, 'body.status'],
    [{ currency: 'EURO' }, 'body.currency'],
    [{ source: 'remoteok' }, 'body.source'],
  ])('refuses %j naming %s', async (body, path) => {
    const gig = await createGig(client);
    expectInvalid(await patch(client, gig.id, body), path);
  });

  it('checks the compensation range against the stored bound', async () => {
    const gig = await createGig(client, { compensation_min_cents: 5000 });
    expectInvalid(await patch(client, gig.id, { compensation_max_cents: 4000 }), 'body.compensation_max_cents');
    const capped = await createGig(client, { compensation_max_cents: 5000 });
    expectInvalid(await patch(client, capped.id, { compensation_min_cents: 6000 }), 'body.compensation_min_cents');
    expect((await gigRow(capped.id))!.compensationMinCents).toBeNull();
  });

  it("is 403 on another user's visible gig, 404 on their draft, 403 on an external gig", async () => {
    const gig = await createGig(client);
    expectError(await patch(other, gig.id, { title: 'Mine now' }), 403, 'FORBIDDEN');
    const draft = await createGig(client, { status: 'draft' });
    expectError(await patch(other, draft.id, { status: 'open' }), 404, 'NOT_FOUND');
    const external = await insertExternalGig();
    expectError(await patch(other, external, { status: 'closed' }), 403, 'FORBIDDEN', /remoteok/);
    expect((await gigRow(gig.id))!.title).toBe('A gig');
    expect((await gigRow(draft.id))!.status).toBe('draft');
    expect((await gigRow(external))!.status).toBe('open');
  });

  it('answers 400 for a malformed id, 401 without credentials', async () => {
    expectInvalid(await patch(client, 'nope', { title: 'x' }), 'path.id');
    const gig = await createGig(client);
    expectError(
      await server.anonymous.PATCH('/api/gigs/{id}', { params: { path: { id: gig.id } }, body: { title: 'x' } }),
      401,
      'UNAUTHENTICATED',
    );
  });
});

describe('DELETE /api/gigs/{id}', () => {
  const del = (user: User, id: string) => user.api.DELETE('/api/gigs/{id}', { params: { path: { id } } });

  it('deletes a gig nobody applied to, and writes gig.deleted for the client', async () => {
    const gig = await createGig(client);
    const res = await del(client, gig.id);
    expect(res.response.status).toBe(204);
    expect(await gigRow(gig.id)).toBeUndefined();
    const events = await eventsForResource(server.db, 'gig', gig.id);
    expect(events.map((e) => e.type)).toEqual(['gig.created', 'gig.deleted']);
    expect(events[1]!.audienceUserIds).toEqual([client.userId]);
    expectError(await del(client, gig.id), 404, 'NOT_FOUND');
  });

  it('refuses with 409 once a worker applied (withdrawn too) or was invited, and keeps everything', async () => {
    const applied = await createGig(client);
    const worker = await server.user('Applicant');
    const application = await worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: applied.id } } });
    await worker.api.POST('/api/applications/{id}/withdraw', { params: { path: { id: application.data!.id } } });
    expectError(await del(client, applied.id), 409, 'CONFLICT', /a worker has applied to this gig; close it instead/);
    const invited = await createGig(client);
    await client.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: invited.id } }, body: { worker_user_id: worker.userId } });
    expectError(await del(client, invited.id), 409, 'CONFLICT', /close it instead/);
    for (const gig of [applied, invited]) {
      expect(await gigRow(gig.id)).toBeDefined();
      expect(await server.db.select().from(applications).where(eq(applications.gigId, gig.id))).toHaveLength(1);
      expect(await eventTypes(gig.id)).not.toContain('gig.deleted');
    }
    // The worker still sees their application; closing the gig is the way to end it.
    expect((await worker.api.GET('/api/applications/{id}', { params: { path: { id: application.data!.id } } })).response.status).toBe(200);
    expect(
      (await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: applied.id } }, body: { status: 'closed' } })).response.status,
    ).toBe(200);
  });

  it('refuses with 409 while a negotiation refers to the gig', async () => {
    const gig = await createGig(client);
    const worker = await server.user('Negotiator');
    await server.db
      .insert(negotiations)
      .values({ id: newId(), gigId: gig.id, clientUserId: client.userId, workerUserId: worker.userId, status: 'open' });
    expectError(await del(client, gig.id), 409, 'CONFLICT', /close it instead/);
    expect(await gigRow(gig.id)).toBeDefined();
    expect(await eventTypes(gig.id)).toEqual(['gig.created']);
  });

  it("is 403 on another user's visible gig, 404 on their draft, 403 on an external gig", async () => {
    const gig = await createGig(client);
    expectError(await del(other, gig.id), 403, 'FORBIDDEN');
    const draft = await createGig(client, { status: 'draft' });
    expectError(await del(other, draft.id), 404, 'NOT_FOUND');
    const external = await insertExternalGig();
    expectError(await del(other, external), 403, 'FORBIDDEN');
    for (const id of [gig.id, draft.id, external]) expect(await gigRow(id)).toBeDefined();
  });

  it('answers 400 for a malformed id, 401 without credentials', async () => {
    expectInvalid(await del(client, '123'), 'path.id');
    const gig = await createGig(client);
    expectError(await server.anonymous.DELETE('/api/gigs/{id}', { params: { path: { id: gig.id } } }), 401, 'UNAUTHENTICATED');
    expect(await gigRow(gig.id)).toBeDefined();
  });
});
