import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { applications, gigs } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { expectInvalid, expectError } from '../helpers/expect-error.ts';

const server = testFileServer();
let client: User;
let stranger: User;

beforeAll(async () => {
  [client, stranger] = await server.users('Client', 'Stranger');
});

async function createGig(status?: 'draft' | 'open' | 'paused' | 'closed', owner = client) {
  const res = await owner.api.POST('/api/gigs', { body: { title: 'A gig', status: status === 'draft' ? 'draft' : 'open' } });
  const gig = res.data!;
  if (status === 'paused' || status === 'closed') {
    await owner.api.PATCH('/api/gigs/{id}', { params: { path: { id: gig.id } }, body: { status } });
  }
  return gig.id;
}

const apply = (user: User, gigId: string, body?: Record<string, unknown>, headers?: Record<string, string>) =>
  user.api.POST('/api/gigs/{id}/applications', { params: { path: { id: gigId }, header: headers as never }, body: body as never });

async function applied(user: User, gigId: string) {
  const res = await apply(user, gigId, { message: 'Hire me' });
  expect(res.response.status).toBe(201);
  return res.data!;
}

const act = (user: User, action: 'shortlist' | 'reject' | 'withdraw', id: string) =>
  user.api.POST(`/api/applications/{id}/${action}`, { params: { path: { id } } });

const shortlistWorker = (user: User, gigId: string, workerId: string) =>
  user.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: gigId } }, body: { worker_user_id: workerId } });

const appRow = async (id: string) => (await server.db.select().from(applications).where(eq(applications.id, id)))[0];
const eventTypes = async (id: string) => (await eventsForResource(server.db, 'application', id)).map((e) => e.type);

describe('POST /api/gigs/{id}/applications', () => {
  it('submits an application, writes application.submitted for both parties', async () => {
    const gigId = await createGig();
    const worker = await server.user('Worker');
    const res = await apply(worker, gigId, { message: 'I know Rust', proposed_rate_cents: 9000 });
    expect(res.response.status).toBe(201);
    expect(res.data).toMatchObject({
      gig_id: gigId,
      worker_user_id: worker.userId,
      client_user_id: client.userId,
      origin: 'application',
      status: 'submitted',
      message: 'I know Rust',
      proposed_rate_cents: 9000,
    });
    expect(await appRow(res.data!.id)).toMatchObject({ gigId, workerUserId: worker.userId, status: 'submitted', origin: 'application' });
    const events = await eventsForResource(server.db, 'application', res.data!.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'application.submitted', actorUserId: worker.userId, data: res.data });
    expect(events[0]!.audienceUserIds.sort()).toEqual([worker.userId, client.userId].sort());
  });

  it('takes no body at all', async () => {
    const res = await apply(await server.user(), await createGig());
    expect(res.response.status).toBe(201);
    expect(res.data).toMatchObject({ message: '', proposed_rate_cents: null });
  });

  it('accepts one application per worker and gig: a second is 409 CONFLICT', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    await applied(worker, gigId);
    expectError(await apply(worker, gigId), 409, 'CONFLICT');
    expect(await server.db.select().from(applications).where(eq(applications.gigId, gigId))).toHaveLength(1);
  });

  it('makes exactly one application of two concurrent requests', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    const results = await Promise.all([apply(worker, gigId, { message: 'one' }), apply(worker, gigId, { message: 'two' })]);
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409]);
    const rows = await server.db.select().from(applications).where(eq(applications.gigId, gigId));
    expect(rows).toHaveLength(1);
    expect(await eventTypes(rows[0]!.id)).toEqual(['application.submitted']);
  });

  it('replays a retry with the same Idempotency-Key instead of answering 409', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    const key = { 'Idempotency-Key': `apply-${newId()}` };
    const first = await apply(worker, gigId, { message: 'hi' }, key);
    const again = await apply(worker, gigId, { message: 'hi' }, key);
    expect(again.response.status).toBe(201);
    expect(again.data!.id).toBe(first.data!.id);
    expectError(await apply(worker, gigId, { message: 'other' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('needs an open gig: paused and closed are 409 INVALID_STATE naming the status', async () => {
    const worker = await server.user();
    expectError(await apply(worker, await createGig('paused')), 409, 'INVALID_STATE', /paused/);
    expectError(await apply(worker, await createGig('closed')), 409, 'INVALID_STATE', /closed/);
    expect(await server.db.select().from(applications).where(eq(applications.workerUserId, worker.userId))).toEqual([]);
  });

  it("is 403 on one's own gig, 404 on another user's draft or an unknown gig, 403 on an external gig", async () => {
    const gigId = await createGig();
    expectError(await apply(client, gigId), 403, 'FORBIDDEN');
    expectError(await apply(stranger, await createGig('draft')), 404, 'NOT_FOUND');
    expectError(await apply(stranger, newId()), 404, 'NOT_FOUND');
    const external = newId();
    await server.db.insert(gigs).values({
      id: external,
      clientUserId: null,
      title: 'Imported',
      status: 'open',
      source: 'remoteok',
      externalId: external,
      url: 'https://example.com/j',
    });
    expectError(await apply(stranger, external), 403, 'FORBIDDEN', /url/);
    expect(await server.db.select().from(applications).where(eq(applications.gigId, gigId))).toEqual([]);
  });

  it.each([
    [{ message: 'x'.repeat(5001) }, 'body.message'],
    [{ proposed_rate_cents: -1 }, 'body.proposed_rate_cents'],
    [{ proposed_rate_cents: 'lots' }, 'body.proposed_rate_cents'],
    [{ status: 'shortlisted' }, 'body.status'],
  ])('refuses %j naming %s', async (body, path) => {
    expectInvalid(await apply(stranger, await createGig(), body), path);
  });

  it('answers 400 for a malformed gig id, 401 without credentials', async () => {
    expectInvalid(await apply(stranger, 'nope'), 'path.id');
    const gigId = await createGig();
    expectError(await server.anonymous.POST('/api/gigs/{id}/applications', { params: { path: { id: gigId } } }), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/gigs/{id}/applications', () => {
  it("lists a gig's applications for its client, newest first, filterable, page by page", async () => {
    const gigId = await createGig();
    const [w1, w2, w3] = [await server.user(), await server.user(), await server.user()];
    const a1 = await applied(w1, gigId);
    const a2 = await applied(w2, gigId);
    const a3 = await applied(w3, gigId);
    await act(client, 'shortlist', a2.id);
    await applied(w1, await createGig()); // another gig's application stays out

    const first = await client.api.GET('/api/gigs/{id}/applications', { params: { path: { id: gigId }, query: { limit: 2 } } });
    expect(first.response.status).toBe(200);
    expect(first.data!.data.map((a) => a.id)).toEqual([a3.id, a2.id]);
    const rest = await client.api.GET('/api/gigs/{id}/applications', {
      params: { path: { id: gigId }, query: { limit: 2, cursor: first.data!.next_cursor! } },
    });
    expect(rest.data).toEqual({ data: [a1], next_cursor: null });
    const shortlisted = await client.api.GET('/api/gigs/{id}/applications', {
      params: { path: { id: gigId }, query: { status: 'shortlisted' } },
    });
    expect(shortlisted.data!.data).toEqual([expect.objectContaining({ id: a2.id, status: 'shortlisted' })]);
  });

  it('is 403 for another user who can see the gig, 404 on a draft they cannot', async () => {
    const gigId = await createGig();
    await applied(await server.user(), gigId);
    expectError(await stranger.api.GET('/api/gigs/{id}/applications', { params: { path: { id: gigId } } }), 403, 'FORBIDDEN');
    const draft = await createGig('draft');
    expectError(await stranger.api.GET('/api/gigs/{id}/applications', { params: { path: { id: draft } } }), 404, 'NOT_FOUND');
  });

  it('refuses a bad status, limit or id; 401 without credentials', async () => {
    const gigId = await createGig();
    expectInvalid(
      await client.api.GET('/api/gigs/{id}/applications', { params: { path: { id: gigId }, query: { status: 'hired' as never } } }),
      'query.status',
    );
    expectInvalid(
      await client.api.GET('/api/gigs/{id}/applications', { params: { path: { id: gigId }, query: { limit: 0 } } }),
      'query.limit',
    );
    expectInvalid(await client.api.GET('/api/gigs/{id}/applications', { params: { path: { id: 'x' } } }), 'path.id');
    expectError(await server.anonymous.GET('/api/gigs/{id}/applications', { params: { path: { id: gigId } } }), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/applications', () => {
  it("lists the caller's own applications and invitations, filterable", async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    const invited = (await shortlistWorker(client, await createGig(), worker.userId)).data!;
    await applied(await server.user(), await createGig()); // someone else's

    const all = await worker.api.GET('/api/applications');
    expect(all.response.status).toBe(200);
    expect(all.data).toEqual({ data: [invited, a], next_cursor: null });
    const submitted = await worker.api.GET('/api/applications', { params: { query: { status: 'submitted' } } });
    expect(submitted.data!.data.map((x) => x.id)).toEqual([a.id]);
  });

  it('refuses a bad status or limit; 401 without credentials', async () => {
    expectInvalid(await client.api.GET('/api/applications', { params: { query: { status: 'nope' as never } } }), 'query.status');
    expectInvalid(await client.api.GET('/api/applications', { params: { query: { limit: 1000 } } }), 'query.limit');
    expectError(await server.anonymous.GET('/api/applications'), 401, 'UNAUTHENTICATED');
  });
});

describe('GET /api/applications/{id}', () => {
  it("shows the application to its worker and to the gig's client, to nobody else", async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    for (const user of [worker, client]) {
      const res = await user.api.GET('/api/applications/{id}', { params: { path: { id: a.id } } });
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual(a);
    }
    expectError(await stranger.api.GET('/api/applications/{id}', { params: { path: { id: a.id } } }), 404, 'NOT_FOUND');
    expectError(await worker.api.GET('/api/applications/{id}', { params: { path: { id: newId() } } }), 404, 'NOT_FOUND');
  });

  it('answers 400 for a malformed id, 401 without credentials', async () => {
    expectInvalid(await client.api.GET('/api/applications/{id}', { params: { path: { id: 'x' } } }), 'path.id');
    expectError(await server.anonymous.GET('/api/applications/{id}', { params: { path: { id: newId() } } }), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /api/applications/{id}/shortlist | reject | withdraw', () => {
  it('the client shortlists a submitted application: application.shortlisted', async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    const res = await act(client, 'shortlist', a.id);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ id: a.id, status: 'shortlisted', origin: 'application' });
    expect((await appRow(a.id))!.status).toBe('shortlisted');
    const events = await eventsForResource(server.db, 'application', a.id);
    expect(events.map((e) => e.type)).toEqual(['application.submitted', 'application.shortlisted']);
    expect(events[1]).toMatchObject({ actorUserId: client.userId, data: res.data });
  });

  it('the client may shortlist while the gig is paused, not once it is closed', async () => {
    const gigId = await createGig();
    const [w1, w2] = [await server.user(), await server.user()];
    const a1 = await applied(w1, gigId);
    const a2 = await applied(w2, gigId);
    await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: gigId } }, body: { status: 'paused' } });
    expect((await act(client, 'shortlist', a1.id)).data!.status).toBe('shortlisted');
    await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: gigId } }, body: { status: 'closed' } });
    expectError(await act(client, 'shortlist', a2.id), 409, 'INVALID_STATE', /closed/);
    expect((await appRow(a2.id))!.status).toBe('submitted');
    // Rejecting still tidies up after the gig closed.
    expect((await act(client, 'reject', a2.id)).data!.status).toBe('rejected');
  });

  it('the client rejects a submitted or shortlisted application: application.rejected', async () => {
    const gigId = await createGig();
    const a = await applied(await server.user(), gigId);
    const b = await applied(await server.user(), gigId);
    await act(client, 'shortlist', b.id);
    for (const x of [a, b]) {
      const res = await act(client, 'reject', x.id);
      expect(res.response.status).toBe(200);
      expect(res.data!.status).toBe('rejected');
      expect((await appRow(x.id))!.status).toBe('rejected');
      expect((await eventTypes(x.id)).at(-1)).toBe('application.rejected');
    }
  });

  it('the worker withdraws a submitted or shortlisted application: application.withdrawn', async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    const b = await applied(worker, await createGig());
    await act(client, 'shortlist', b.id);
    for (const x of [a, b]) {
      const res = await act(worker, 'withdraw', x.id);
      expect(res.response.status).toBe(200);
      expect(res.data!.status).toBe('withdrawn');
      expect((await appRow(x.id))!.status).toBe('withdrawn');
      expect((await eventTypes(x.id)).at(-1)).toBe('application.withdrawn');
    }
  });

  it('refuses a move from the wrong status with 409 INVALID_STATE naming it', async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    await act(client, 'shortlist', a.id);
    expectError(await act(client, 'shortlist', a.id), 409, 'INVALID_STATE', /shortlisted/);
    await act(worker, 'withdraw', a.id);
    expectError(await act(worker, 'withdraw', a.id), 409, 'INVALID_STATE', /withdrawn/);
    expectError(await act(client, 'reject', a.id), 409, 'INVALID_STATE', /withdrawn/);
    expectError(await act(client, 'shortlist', a.id), 409, 'INVALID_STATE', /withdrawn/);
    expect((await appRow(a.id))!.status).toBe('withdrawn');
    expect(await eventTypes(a.id)).toEqual(['application.submitted', 'application.shortlisted', 'application.withdrawn']);
  });

  it('keeps roles apart: the worker gets 403 on shortlist and reject, the client 403 on withdraw, others 404', async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    expectError(await act(worker, 'shortlist', a.id), 403, 'FORBIDDEN');
    expectError(await act(worker, 'reject', a.id), 403, 'FORBIDDEN');
    expectError(await act(client, 'withdraw', a.id), 403, 'FORBIDDEN');
    for (const action of ['shortlist', 'reject', 'withdraw'] as const) {
      expectError(await act(stranger, action, a.id), 404, 'NOT_FOUND');
    }
    expect((await appRow(a.id))!.status).toBe('submitted');
    expect(await eventTypes(a.id)).toEqual(['application.submitted']);
  });

  it('answers 400 for a malformed id, 401 without credentials', async () => {
    for (const action of ['shortlist', 'reject', 'withdraw'] as const) {
      expectInvalid(await act(client, action, 'x'), 'path.id');
      expectError(
        await server.anonymous.POST(`/api/applications/{id}/${action}`, { params: { path: { id: newId() } } }),
        401,
        'UNAUTHENTICATED',
      );
    }
  });

  it('of a concurrent reject and withdraw, exactly one takes effect', async () => {
    const worker = await server.user();
    const a = await applied(worker, await createGig());
    const [rejected, withdrawn] = await Promise.all([act(client, 'reject', a.id), act(worker, 'withdraw', a.id)]);
    expect([rejected.response.status, withdrawn.response.status].sort()).toEqual([200, 409]);
    const winner = rejected.response.status === 200 ? 'rejected' : 'withdrawn';
    expect((await appRow(a.id))!.status).toBe(winner);
    expect(await eventTypes(a.id)).toEqual(['application.submitted', `application.${winner}`]);
  });

  it('of two concurrent shortlists, exactly one takes effect', async () => {
    const a = await applied(await server.user(), await createGig());
    const results = await Promise.all([act(client, 'shortlist', a.id), act(client, 'shortlist', a.id)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expect(await eventTypes(a.id)).toEqual(['application.submitted', 'application.shortlisted']);
  });

  it('a concurrent shortlist and withdraw never lose an update: the events match the responses and the final status', async () => {
    // Both orders are legal one after the other (shortlist, then withdraw the shortlisted
    // application); run truly at once, the request that decided on a stale status gets 409.
    for (let i = 0; i < 3; i++) {
      const worker = await server.user();
      const a = await applied(worker, await createGig());
      const [s, w] = await Promise.all([act(client, 'shortlist', a.id), act(worker, 'withdraw', a.id)]);
      const ok = [s, w].filter((r) => r.response.status === 200);
      for (const r of [s, w]) expect([200, 409]).toContain(r.response.status);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      const events = await eventTypes(a.id);
      expect(events).toHaveLength(1 + ok.length);
      const final = (await appRow(a.id))!.status;
      // Whatever won last is what the row says: withdrawn whenever the withdraw succeeded.
      expect(final).toBe(w.response.status === 200 ? 'withdrawn' : 'shortlisted');
      expect(events.at(-1)).toBe(`application.${final}`);
    }
  });
});

describe('POST /api/gigs/{id}/shortlist', () => {
  it('invites a worker who has not applied: a shortlisted invitation, 201, application.shortlisted', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    const res = await shortlistWorker(client, gigId, worker.userId);
    expect(res.response.status).toBe(201);
    expect(res.data).toMatchObject({
      gig_id: gigId,
      worker_user_id: worker.userId,
      client_user_id: client.userId,
      origin: 'invitation',
      status: 'shortlisted',
      message: '',
      proposed_rate_cents: null,
    });
    expect(await appRow(res.data!.id)).toMatchObject({ origin: 'invitation', status: 'shortlisted' });
    const events = await eventsForResource(server.db, 'application', res.data!.id);
    expect(events.map((e) => e.type)).toEqual(['application.shortlisted']);
    expect(events[0]!.audienceUserIds.sort()).toEqual([worker.userId, client.userId].sort());
    // The worker sees the invitation and cannot apply on top of it.
    expectError(await apply(worker, gigId), 409, 'CONFLICT');
  });

  it("shortlists the worker's submitted application instead, 200", async () => {
    const gigId = await createGig();
    const worker = await server.user();
    const a = await applied(worker, gigId);
    const res = await shortlistWorker(client, gigId, worker.userId);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ id: a.id, origin: 'application', status: 'shortlisted' });
    expect(
      await server.db
        .select()
        .from(applications)
        .where(and(eq(applications.gigId, gigId), eq(applications.workerUserId, worker.userId))),
    ).toHaveLength(1);
    expect(await eventTypes(a.id)).toEqual(['application.submitted', 'application.shortlisted']);
  });

  it('refuses an application already shortlisted or withdrawn with 409 INVALID_STATE', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    await shortlistWorker(client, gigId, worker.userId);
    expectError(await shortlistWorker(client, gigId, worker.userId), 409, 'INVALID_STATE', /shortlisted/);
    const quitter = await server.user();
    const a = await applied(quitter, gigId);
    await act(quitter, 'withdraw', a.id);
    expectError(await shortlistWorker(client, gigId, quitter.userId), 409, 'INVALID_STATE', /withdrawn/);
    expect((await appRow(a.id))!.status).toBe('withdrawn');
  });

  it('needs an open or paused gig', async () => {
    const worker = await server.user();
    expect((await shortlistWorker(client, await createGig('paused'), worker.userId)).response.status).toBe(201);
    expectError(await shortlistWorker(client, await createGig('closed'), worker.userId), 409, 'INVALID_STATE', /closed/);
    expectError(await shortlistWorker(client, await createGig('draft'), worker.userId), 409, 'INVALID_STATE', /draft/);
  });

  it('is 404 naming an unknown worker, 400 for the client themself', async () => {
    const gigId = await createGig();
    const ghost = newId();
    expectError(await shortlistWorker(client, gigId, ghost), 404, 'NOT_FOUND', new RegExp(ghost));
    expectInvalid(await shortlistWorker(client, gigId, client.userId), 'body.worker_user_id');
    expect(await server.db.select().from(applications).where(eq(applications.gigId, gigId))).toEqual([]);
  });

  it('is 403 for another user on a gig they can see, 404 on a draft they cannot', async () => {
    const worker = await server.user();
    const gigId = await createGig();
    expectError(await shortlistWorker(stranger, gigId, worker.userId), 403, 'FORBIDDEN');
    expectError(await shortlistWorker(stranger, await createGig('draft'), worker.userId), 404, 'NOT_FOUND');
    expect(await server.db.select().from(applications).where(eq(applications.gigId, gigId))).toEqual([]);
  });

  it('refuses a missing or malformed worker id and a malformed gig id; 401 without credentials', async () => {
    const gigId = await createGig();
    expectInvalid(
      await client.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: gigId } }, body: {} as never }),
      'body.worker_user_id',
    );
    expectInvalid(await shortlistWorker(client, gigId, 'bob'), 'body.worker_user_id');
    expectInvalid(await shortlistWorker(client, 'x', newId()), 'path.id');
    expectError(
      await server.anonymous.POST('/api/gigs/{id}/shortlist', { params: { path: { id: gigId } }, body: { worker_user_id: newId() } }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('of an invitation and an application at once, one row results and both parties agree on it', async () => {
    const gigId = await createGig();
    const worker = await server.user();
    const [invite, application] = await Promise.all([shortlistWorker(client, gigId, worker.userId), apply(worker, gigId)]);
    const rows = await server.db.select().from(applications).where(eq(applications.gigId, gigId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('shortlisted');
    // Either the invitation came first (201, and the application is a 409) or the application
    // did (201) and the invitation shortlisted it (200).
    expect([
      [201, 409],
      [200, 201],
    ]).toContainEqual([invite.response.status, application.response.status]);
  });
});
