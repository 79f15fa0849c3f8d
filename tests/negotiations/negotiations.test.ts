// Negotiations over HTTP with two users' keys: start (with and without terms), rounds, agree,
// cancel, contact share, lists. Each operation: success (body, DB, event), invalid input, no
// credentials, a non-party, the wrong role and the wrong state.
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { negotiation as openNegotiation, pendingContract, shortlistedGig } from '../helpers/lifecycle.ts';
import { contracts, milestones as milestoneTable, negotiationRounds, negotiations, users } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { expectInvalid, expectError } from '../helpers/expect-error.ts';
import { grantCredits } from '../../src/services/credits.ts';

const server = testFileServer();
let client: User;
let worker: User;
let stranger: User;

beforeAll(async () => {
  [client, worker, stranger] = await server.users('Client', 'Worker', 'Stranger');
  // The file's client shortlists more workers than a free tier's month of credits pays for.
  await grantCredits(server, client.userId, 100, 'negotiation tests');
});

const terms = {
  rate_cents: 8000,
  hours_per_week: 10,
  start_date: '2026-12-01',
  payout_delay_days: 5,
  milestones: [
    { title: 'Parser', amount_cents: 40_000, due_date: '2026-12-10' },
    { title: 'Docs', amount_cents: 0 },
  ],
};

const start = (user: User, body: Record<string, unknown>) => user.api.POST('/api/negotiations', { body: body as never });
const negotiate = (user: User, body: Record<string, unknown>) => user.api.POST('/api/negotiate', { body: body as never });
const get = (user: User, id: string) => user.api.GET('/api/negotiations/{id}', { params: { path: { id } } });
const propose = (user: User, id: string, body: Record<string, unknown>) =>
  user.api.POST('/api/negotiations/{id}/rounds', { params: { path: { id } }, body: body as never });
const agree = (user: User, id: string) => user.api.POST('/api/negotiations/{id}/agree', { params: { path: { id } } });
const cancelN = (user: User, id: string) => user.api.POST('/api/negotiations/{id}/cancel', { params: { path: { id } } });
const share = (user: User, id: string) => user.api.POST('/api/negotiations/{id}/contact-share', { params: { path: { id } } });

const row = async (id: string) => (await server.db.select().from(negotiations).where(eq(negotiations.id, id)))[0];
const roundRows = async (id: string) =>
  server.db.select().from(negotiationRounds).where(eq(negotiationRounds.negotiationId, id)).orderBy(negotiationRounds.number);
const events = (id: string) => eventsForResource(server.db, 'negotiation', id);
const eventTypes = async (id: string) => (await events(id)).map((e) => e.type);
const negotiationsOn = async (gigId: string) => server.db.select().from(negotiations).where(eq(negotiations.gigId, gigId));

/** A fresh pair, so that one test's negotiations do not block another's. */
async function pair() {
  return { client: await server.user('Client'), worker: await server.user('Worker') };
}

describe('POST /api/negotiations', () => {
  it('the client starts a negotiation with a shortlisted worker: no rounds, event negotiation.created', async () => {
    const gig = await shortlistedGig(client, worker);
    const res = await start(client, { gig_id: gig.id, worker_user_id: worker.userId });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      gig_id: gig.id,
      client_user_id: client.userId,
      worker_user_id: worker.userId,
      status: 'open',
      contract_id: null,
      rounds: [],
      awaiting: null,
      contact: { client_shared: false, worker_shared: false, counterpart: null },
      agreed_at: null,
      cancelled_at: null,
    });
    expect(await row(res.data!.id)).toMatchObject({
      gigId: gig.id,
      clientUserId: client.userId,
      workerUserId: worker.userId,
      status: 'open',
    });
    const written = await events(res.data!.id);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ type: 'negotiation.created', actorUserId: client.userId, data: res.data });
    expect(written[0]!.audienceUserIds.sort()).toEqual([client.userId, worker.userId].sort());
  });

  it('rejects invalid bodies, naming the field, and writes nothing', async () => {
    const gig = await shortlistedGig(client, worker);
    expectInvalid(await start(client, { gig_id: 'nope', worker_user_id: worker.userId }), 'body.gig_id');
    expectInvalid(await start(client, { gig_id: gig.id }), 'body.worker_user_id');
    expectInvalid(await start(client, { gig_id: gig.id, worker_user_id: worker.userId, rate_cents: 5 }), 'body.rate_cents');
    expect(await negotiationsOn(gig.id)).toEqual([]);
  });

  it('401 without credentials', async () => {
    const gig = await shortlistedGig(client, worker);
    const res = await server.anonymous.POST('/api/negotiations', { body: { gig_id: gig.id, worker_user_id: worker.userId } });
    expectError(res, 401, 'UNAUTHENTICATED');
  });

  it("404 for an unknown gig and for someone else's draft gig", async () => {
    expectError(await start(client, { gig_id: newId(), worker_user_id: worker.userId }), 404, 'NOT_FOUND');
    const draft = await client.api.POST('/api/gigs', { body: { title: 'Secret', status: 'draft' } });
    expectError(await start(stranger, { gig_id: draft.data!.id, worker_user_id: worker.userId }), 404, 'NOT_FOUND');
  });

  it('403 for the worker and for a stranger on a visible gig', async () => {
    const gig = await shortlistedGig(client, worker);
    expectError(await start(worker, { gig_id: gig.id, worker_user_id: worker.userId }), 403, 'FORBIDDEN');
    expectError(await start(stranger, { gig_id: gig.id, worker_user_id: worker.userId }), 403, 'FORBIDDEN');
    expect(await negotiationsOn(gig.id)).toEqual([]);
  });

  it('409 INVALID_STATE when the worker is not shortlisted (applied, or not at all)', async () => {
    const gig = await client.api.POST('/api/gigs', { body: { title: 'Another gig' } });
    expectError(await start(client, { gig_id: gig.data!.id, worker_user_id: worker.userId }), 409, 'INVALID_STATE', /shortlisted.*absent/);
    await worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: gig.data!.id } }, body: { message: 'Me' } });
    expectError(await start(client, { gig_id: gig.data!.id, worker_user_id: worker.userId }), 409, 'INVALID_STATE', /submitted/);
  });

  it('409 INVALID_STATE on a closed gig', async () => {
    const gig = await shortlistedGig(client, worker);
    await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: gig.id } }, body: { status: 'closed' } });
    expectError(await start(client, { gig_id: gig.id, worker_user_id: worker.userId }), 409, 'INVALID_STATE', /closed/);
  });

  it('409 CONFLICT for a second open negotiation on the same gig and worker; a new one after cancel', async () => {
    const gig = await shortlistedGig(client, worker);
    const first = await start(client, { gig_id: gig.id, worker_user_id: worker.userId });
    expectError(await start(client, { gig_id: gig.id, worker_user_id: worker.userId }), 409, 'CONFLICT');
    expectError(await negotiate(client, { gig_id: gig.id, worker_user_id: worker.userId, ...terms }), 409, 'CONFLICT');
    expect(await negotiationsOn(gig.id)).toHaveLength(1);
    await cancelN(client, first.data!.id);
    const again = await start(client, { gig_id: gig.id, worker_user_id: worker.userId });
    expect(again.response.status).toBe(200);
    expect(again.data!.id).not.toBe(first.data!.id);
  });

  it('two concurrent starts: one negotiation, one 409 CONFLICT, one event', async () => {
    const gig = await shortlistedGig(client, worker);
    const results = await Promise.all([
      start(client, { gig_id: gig.id, worker_user_id: worker.userId }),
      negotiate(client, { gig_id: gig.id, worker_user_id: worker.userId, ...terms }),
    ]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expectError(results.find((r) => r.response.status === 409)!, 409, 'CONFLICT');
    const rows = await negotiationsOn(gig.id);
    expect(rows).toHaveLength(1);
    expect(await eventTypes(rows[0]!.id)).toContain('negotiation.created');
    expect((await eventTypes(rows[0]!.id)).filter((t) => t === 'negotiation.created')).toHaveLength(1);
  });

  it('409 CONFLICT while the contract of an earlier negotiation on the gig is not settled', async () => {
    const p = await pair();
    const { gig, contract } = await pendingContract(p.client, p.worker);
    expectError(await start(p.client, { gig_id: gig.id, worker_user_id: p.worker.userId }), 409, 'CONFLICT', /contract/);
    // Once that contract has ended, the parties may start over.
    await p.client.api.POST('/api/contracts/{id}/cancel', { params: { path: { id: contract.id } } });
    expect((await start(p.client, { gig_id: gig.id, worker_user_id: p.worker.userId })).response.status).toBe(200);
  });
});

describe('POST /api/negotiate', () => {
  it("starts with the client's first round: events negotiation.created and negotiation.round_created", async () => {
    const gig = await shortlistedGig(client, worker);
    const res = await negotiate(client, { gig_id: gig.id, worker_user_id: worker.userId, ...terms, notes: 'Happy to talk' });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'open', awaiting: 'worker', contract_id: null });
    expect(res.data!.rounds).toHaveLength(1);
    expect(res.data!.rounds[0]).toMatchObject({
      number: 1,
      proposed_by: 'client',
      proposer_user_id: client.userId,
      rate_cents: 8000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 5,
      currency: 'USD',
      notes: 'Happy to talk',
      milestones: [
        { title: 'Parser', amount_cents: 40_000, due_date: '2026-12-10' },
        { title: 'Docs', amount_cents: 0, due_date: null },
      ],
    });
    const rounds = await roundRows(res.data!.id);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toMatchObject({ number: 1, proposerRole: 'client', rateCents: 8000, payoutDelayDays: 5, currency: 'USD' });
    const written = await events(res.data!.id);
    expect(written.map((e) => e.type)).toEqual(['negotiation.created', 'negotiation.round_created']);
    expect(written[1]).toMatchObject({ actorUserId: client.userId, data: res.data });
  });

  it('every term but the ids is optional; currency comes from the gig', async () => {
    const gig = await client.api.POST('/api/gigs', { body: { title: 'Euro gig', currency: 'EUR' } });
    await client.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: gig.data!.id } }, body: { worker_user_id: worker.userId } });
    const res = await negotiate(client, { gig_id: gig.data!.id, worker_user_id: worker.userId });
    expect(res.response.status).toBe(200);
    expect(res.data!.rounds[0]).toMatchObject({
      rate_cents: null,
      hours_per_week: null,
      start_date: null,
      payout_delay_days: null,
      currency: 'EUR',
      milestones: [],
    });
  });

  it('rejects invalid terms, naming the field, and writes nothing', async () => {
    const gig = await shortlistedGig(client, worker);
    const base = { gig_id: gig.id, worker_user_id: worker.userId, ...terms };
    expectInvalid(await negotiate(client, { ...base, payout_delay_days: 2 }), 'body.payout_delay_days');
    expectInvalid(await negotiate(client, { ...base, payout_delay_days: 11 }), 'body.payout_delay_days');
    expectInvalid(await negotiate(client, { ...base, start_date: 'next monday' }), 'body.start_date');
    expectInvalid(await negotiate(client, { ...base, start_date: '2026-02-30' }), 'body.start_date');
    expectInvalid(
      await negotiate(client, { ...base, milestones: [{ title: 'Bad', amount_cents: -1 }] }),
      'body.milestones[0].amount_cents',
    );
    expectInvalid(await negotiate(client, { ...base, milestones: [{ title: '  ', amount_cents: 1 }] }), 'body.milestones[0].title');
    expectInvalid(await negotiate(client, { ...base, hours_per_week: 0 }), 'body.hours_per_week');
    expectInvalid(await negotiate(client, { ...base, currency: 'usd' }), 'body.currency');
    expectInvalid(await negotiate(client, { ...base, bonus_cents: 5 }), 'body.bonus_cents');
    expectInvalid(await negotiate(client, { ...base, gig_id: undefined }), 'body.gig_id');
    expect(await negotiationsOn(gig.id)).toEqual([]);
  });

  it('401 without credentials', async () => {
    const gig = await shortlistedGig(client, worker);
    expectError(
      await server.anonymous.POST('/api/negotiate', { body: { gig_id: gig.id, worker_user_id: worker.userId, ...terms } }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('404 for an unknown gig; 403 for the worker or a stranger; 409 when not shortlisted', async () => {
    const gig = await shortlistedGig(client, worker);
    expectError(await negotiate(client, { gig_id: newId(), worker_user_id: worker.userId, ...terms }), 404, 'NOT_FOUND');
    expectError(await negotiate(worker, { gig_id: gig.id, worker_user_id: worker.userId, ...terms }), 403, 'FORBIDDEN');
    expectError(await negotiate(stranger, { gig_id: gig.id, worker_user_id: worker.userId, ...terms }), 403, 'FORBIDDEN');
    expectError(await negotiate(client, { gig_id: gig.id, worker_user_id: stranger.userId, ...terms }), 409, 'INVALID_STATE');
    expect(await negotiationsOn(gig.id)).toEqual([]);
  });
});

describe('GET /api/negotiations and /api/negotiations/{id}', () => {
  it('both parties see the negotiation with its rounds; nobody else does', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    for (const party of [client, worker]) {
      const res = await get(party, negotiation.id);
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual(negotiation);
    }
    expectError(await get(stranger, negotiation.id), 404, 'NOT_FOUND');
    expectError(await get(client, newId()), 404, 'NOT_FOUND');
    expectInvalid(await get(client, 'not-a-uuid'), 'path.id');
    expectError(await server.anonymous.GET('/api/negotiations/{id}', { params: { path: { id: negotiation.id } } }), 401, 'UNAUTHENTICATED');
  });

  it("lists the caller's negotiations, newest first, filtered by status and gig, in pages", async () => {
    const p = await pair();
    const a = await openNegotiation(p.client, p.worker);
    const b = await openNegotiation(p.client, p.worker);
    await cancelN(p.client, a.negotiation.id);

    for (const party of [p.client, p.worker]) {
      const all = await party.api.GET('/api/negotiations');
      expect(all.response.status).toBe(200);
      expect(all.data!.data.map((n) => n.id)).toEqual([b.negotiation.id, a.negotiation.id]);
      expect(all.data!.data[0]!.rounds).toHaveLength(1);
    }
    const open = await p.worker.api.GET('/api/negotiations', { params: { query: { status: 'open' } } });
    expect(open.data!.data.map((n) => n.id)).toEqual([b.negotiation.id]);
    const cancelled = await p.worker.api.GET('/api/negotiations', { params: { query: { status: 'cancelled' } } });
    expect(cancelled.data!.data.map((n) => n.id)).toEqual([a.negotiation.id]);
    const onGig = await p.client.api.GET('/api/negotiations', { params: { query: { gig_id: a.gig.id } } });
    expect(onGig.data!.data.map((n) => n.id)).toEqual([a.negotiation.id]);

    const first = await p.client.api.GET('/api/negotiations', { params: { query: { limit: 1 } } });
    expect(first.data!.data.map((n) => n.id)).toEqual([b.negotiation.id]);
    expect(first.data!.next_cursor).toEqual(expect.any(String));
    const second = await p.client.api.GET('/api/negotiations', { params: { query: { limit: 1, cursor: first.data!.next_cursor! } } });
    expect(second.data!.data.map((n) => n.id)).toEqual([a.negotiation.id]);
    expect(second.data!.next_cursor).toBeNull();

    const none = await stranger.api.GET('/api/negotiations', { params: { query: { gig_id: a.gig.id } } });
    expect(none.data!.data).toEqual([]);
  });

  it('rejects a bad filter; 401 without credentials', async () => {
    expectInvalid(await client.api.GET('/api/negotiations', { params: { query: { status: 'won' as never } } }), 'query.status');
    expectInvalid(await client.api.GET('/api/negotiations', { params: { query: { gig_id: 'x' } } }), 'query.gig_id');
    expectInvalid(await client.api.GET('/api/negotiations', { params: { query: { limit: 0 } } }), 'query.limit');
    expectError(await server.anonymous.GET('/api/negotiations'), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /api/negotiations/{id}/rounds', () => {
  it('rounds alternate: the worker counters, then the client; each writes negotiation.round_created', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    const counter = await propose(worker, negotiation.id, {
      rate_cents: 9500,
      milestones: [{ title: 'All', amount_cents: 50_000 }],
      notes: 'More, please',
    });
    expect(counter.response.status).toBe(201);
    expect(counter.data).toMatchObject({ status: 'open', awaiting: 'client' });
    expect(counter.data!.rounds.map((r) => [r.number, r.proposed_by])).toEqual([
      [1, 'client'],
      [2, 'worker'],
    ]);
    // The currency carries over from the previous round; left-out terms are null (each round states the full terms).
    expect(counter.data!.rounds[1]).toMatchObject({
      proposer_user_id: worker.userId,
      rate_cents: 9500,
      hours_per_week: null,
      currency: 'USD',
      notes: 'More, please',
    });

    expectError(await propose(worker, negotiation.id, terms), 409, 'INVALID_STATE', /round 2 is yours/);
    const back = await propose(client, negotiation.id, { ...terms, rate_cents: 9000 });
    expect(back.response.status).toBe(201);
    expect(back.data!.awaiting).toBe('worker');
    expect((await roundRows(negotiation.id)).map((r) => [r.number, r.proposerRole, r.rateCents])).toEqual([
      [1, 'client', 8000],
      [2, 'worker', 9500],
      [3, 'client', 9000],
    ]);
    const written = await events(negotiation.id);
    expect(written.map((e) => e.type)).toEqual([
      'negotiation.created',
      'negotiation.round_created',
      'negotiation.round_created',
      'negotiation.round_created',
    ]);
    expect(written[3]).toMatchObject({ actorUserId: client.userId, data: { rounds: back.data!.rounds } });
  });

  it('on a negotiation without rounds either party may propose first', async () => {
    const gig = await shortlistedGig(client, worker);
    const n = await start(client, { gig_id: gig.id, worker_user_id: worker.userId });
    const res = await propose(worker, n.data!.id, terms);
    expect(res.response.status).toBe(201);
    expect(res.data!.rounds[0]).toMatchObject({ number: 1, proposed_by: 'worker' });
    expectError(await propose(worker, n.data!.id, terms), 409, 'INVALID_STATE');
  });

  it('proposing twice in a row is 409, and writes nothing', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(await propose(client, negotiation.id, terms), 409, 'INVALID_STATE', /worker answers next/);
    expect(await roundRows(negotiation.id)).toHaveLength(1);
  });

  it('rejects invalid terms, naming the field', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectInvalid(await propose(worker, negotiation.id, { rate_cents: 1 }), 'body.milestones');
    expectInvalid(await propose(worker, negotiation.id, { ...terms, payout_delay_days: 11 }), 'body.payout_delay_days');
    expectInvalid(await propose(worker, negotiation.id, { ...terms, start_date: '01/12/2026' }), 'body.start_date');
    expectInvalid(
      await propose(worker, negotiation.id, { ...terms, milestones: [{ title: 'x', amount_cents: -1 }] }),
      'body.milestones[0].amount_cents',
    );
    expectInvalid(
      await propose(worker, negotiation.id, { ...terms, milestones: [{ title: 'x', amount_cents: 1, due_date: 'soon' }] }),
      'body.milestones[0].due_date',
    );
    expectInvalid(await propose(worker, negotiation.id, { ...terms, gig_id: negotiation.gig_id }), 'body.gig_id');
    expect(await roundRows(negotiation.id)).toHaveLength(1);
  });

  it('401 without credentials; 404 for a non-party and an unknown id', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(
      await server.anonymous.POST('/api/negotiations/{id}/rounds', { params: { path: { id: negotiation.id } }, body: terms }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await propose(stranger, negotiation.id, terms), 404, 'NOT_FOUND');
    expectError(await propose(worker, newId(), terms), 404, 'NOT_FOUND');
  });

  it('409 on a cancelled or an agreed negotiation', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    await cancelN(worker, negotiation.id);
    expectError(await propose(worker, negotiation.id, terms), 409, 'INVALID_STATE', /cancelled/);
    const p = await pair();
    const agreed = await pendingContract(p.client, p.worker);
    expectError(await propose(p.client, agreed.negotiation.id, terms), 409, 'INVALID_STATE', /agreed/);
    expect(await roundRows(agreed.negotiation.id)).toHaveLength(1);
  });
});

describe('POST /api/negotiations/{id}/agree', () => {
  it("the other party agrees: negotiation agreed, contract in pending_owner_approval with the round's terms", async () => {
    const { negotiation } = await openNegotiation(client, worker);
    await propose(worker, negotiation.id, { ...terms, rate_cents: 9000, notes: 'Counter' });
    const before = Date.now();
    const res = await agree(client, negotiation.id);
    expect(res.response.status).toBe(200);
    const { negotiation: n, contract } = res.data!;
    expect(n).toMatchObject({ status: 'agreed', awaiting: null, contract_id: contract.id });
    expect(n.agreed_at).toEqual(expect.any(String));
    expect(contract).toMatchObject({
      negotiation_id: negotiation.id,
      gig_id: negotiation.gig_id,
      client_user_id: client.userId,
      worker_user_id: worker.userId,
      status: 'pending_owner_approval',
      rate_cents: 9000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 5,
      currency: 'USD',
      client_approved_at: null,
      worker_approved_at: null,
      revision_notes: null,
      revision_count: 0,
    });
    expect(contract.milestones).toMatchObject([
      { position: 1, title: 'Parser', amount_cents: 40_000, currency: 'USD', due_date: '2026-12-10', status: 'pending' },
      { position: 2, title: 'Docs', amount_cents: 0, due_date: null, status: 'pending' },
    ]);
    // The default CONTRACT_APPROVAL_TTL is 48 hours.
    const deadline = Date.parse(contract.approval_deadline!);
    expect(deadline).toBeGreaterThanOrEqual(before + 48 * 3600_000 - 1000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 48 * 3600_000 + 1000);

    expect(await row(negotiation.id)).toMatchObject({ status: 'agreed' });
    const [stored] = await server.db.select().from(contracts).where(eq(contracts.id, contract.id));
    expect(stored).toMatchObject({ status: 'pending_owner_approval', rateCents: 9000, payoutDelayDays: 5, negotiationId: negotiation.id });
    expect(await server.db.select().from(milestoneTable).where(eq(milestoneTable.contractId, contract.id))).toHaveLength(2);

    const nEvents = await events(negotiation.id);
    expect(nEvents.at(-1)).toMatchObject({
      type: 'negotiation.agreed',
      actorUserId: client.userId,
      data: { status: 'agreed', contract_id: contract.id },
    });
    const cEvents = await eventsForResource(server.db, 'contract', contract.id);
    expect(cEvents.map((e) => e.type)).toEqual(['contract.created']);
    expect(cEvents[0]).toMatchObject({ actorUserId: client.userId, data: contract });
    // The contract is listed on the negotiation from now on.
    expect((await get(worker, negotiation.id)).data!.contract_id).toBe(contract.id);
  });

  it('a round without payout_delay_days gives a contract with 7', async () => {
    const gig = await shortlistedGig(client, worker);
    const n = await negotiate(client, { gig_id: gig.id, worker_user_id: worker.userId, milestones: [{ title: 'All', amount_cents: 100 }] });
    const res = await agree(worker, n.data!.id);
    expect(res.response.status).toBe(200);
    expect(res.data!.contract).toMatchObject({ payout_delay_days: 7, rate_cents: null, start_date: null });
  });

  it('409 for agreeing to your own round, with no round, with no milestones; nothing written', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(await agree(client, negotiation.id), 409, 'INVALID_STATE', /you proposed round 1/);

    const gig = await shortlistedGig(client, worker);
    const empty = await start(client, { gig_id: gig.id, worker_user_id: worker.userId });
    expectError(await agree(worker, empty.data!.id), 409, 'INVALID_STATE', /no terms/);

    const gig2 = await shortlistedGig(client, worker);
    const bare = await negotiate(client, { gig_id: gig2.id, worker_user_id: worker.userId, rate_cents: 100 });
    expectError(await agree(worker, bare.data!.id), 409, 'INVALID_STATE', /no milestones/);

    for (const id of [negotiation.id, empty.data!.id, bare.data!.id]) {
      expect(await row(id)).toMatchObject({ status: 'open' });
      expect(await server.db.select().from(contracts).where(eq(contracts.negotiationId, id))).toEqual([]);
      expect(await eventTypes(id)).not.toContain('negotiation.agreed');
    }
  });

  it('409 on an agreed or a cancelled negotiation', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    expectError(await agree(p.worker, negotiation.id), 409, 'INVALID_STATE', /agreed/);
    expectError(await agree(p.client, negotiation.id), 409, 'INVALID_STATE', /agreed/);
    expect(await server.db.select().from(contracts).where(eq(contracts.negotiationId, negotiation.id))).toHaveLength(1);
    expect((await eventsForResource(server.db, 'contract', contract.id)).map((e) => e.type)).toEqual(['contract.created']);

    const { negotiation: cancelled } = await openNegotiation(client, worker);
    await cancelN(client, cancelled.id);
    expectError(await agree(worker, cancelled.id), 409, 'INVALID_STATE', /cancelled/);
  });

  it('two concurrent agrees by the same party: one contract, one 409', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    const results = await Promise.all([agree(worker, negotiation.id), agree(worker, negotiation.id)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expect(await server.db.select().from(contracts).where(eq(contracts.negotiationId, negotiation.id))).toHaveLength(1);
    expect((await eventTypes(negotiation.id)).filter((t) => t === 'negotiation.agreed')).toHaveLength(1);
  });

  it('401 without credentials; 404 for a non-party', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(
      await server.anonymous.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiation.id } } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await agree(stranger, negotiation.id), 404, 'NOT_FOUND');
    expectInvalid(await agree(worker, 'nope'), 'path.id');
    expect(await row(negotiation.id)).toMatchObject({ status: 'open' });
  });
});

describe('POST /api/negotiations/{id}/cancel', () => {
  it('either party cancels an open negotiation: event negotiation.cancelled', async () => {
    for (const who of ['client', 'worker'] as const) {
      const { negotiation } = await openNegotiation(client, worker);
      const res = await cancelN(who === 'client' ? client : worker, negotiation.id);
      expect(res.response.status).toBe(200);
      expect(res.data).toMatchObject({ status: 'cancelled', awaiting: null });
      expect(res.data!.cancelled_at).toEqual(expect.any(String));
      expect(await row(negotiation.id)).toMatchObject({ status: 'cancelled' });
      const written = await events(negotiation.id);
      expect(written.at(-1)).toMatchObject({
        type: 'negotiation.cancelled',
        actorUserId: (who === 'client' ? client : worker).userId,
        data: { status: 'cancelled' },
      });
    }
  });

  it('409 when cancelled already or agreed; 404 for a non-party; 401 without credentials', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(await cancelN(stranger, negotiation.id), 404, 'NOT_FOUND');
    expectError(
      await server.anonymous.POST('/api/negotiations/{id}/cancel', { params: { path: { id: negotiation.id } } }),
      401,
      'UNAUTHENTICATED',
    );
    expect(await row(negotiation.id)).toMatchObject({ status: 'open' });
    await cancelN(client, negotiation.id);
    expectError(await cancelN(worker, negotiation.id), 409, 'INVALID_STATE', /cancelled/);
    expect((await eventTypes(negotiation.id)).filter((t) => t === 'negotiation.cancelled')).toHaveLength(1);

    const p = await pair();
    const agreed = await pendingContract(p.client, p.worker);
    expectError(await cancelN(p.client, agreed.negotiation.id), 409, 'INVALID_STATE', /agreed/);
  });
});

describe('POST /api/negotiations/{id}/contact-share', () => {
  // The profile API does not expose contact_details yet: set them on the users directly.
  const setContact = (userId: string, details: string | null) =>
    server.db.update(users).set({ contactDetails: details }).where(eq(users.id, userId));

  it("each side sees the other's contact details only once the other shared them", async () => {
    const p = await pair();
    await setContact(p.client.userId, 'client@example.com');
    await setContact(p.worker.userId, 'worker@example.com, +1 555 0100');
    const { negotiation } = await openNegotiation(p.client, p.worker);
    expect((await get(p.client, negotiation.id)).data!.contact).toEqual({ client_shared: false, worker_shared: false, counterpart: null });
    expect((await get(p.worker, negotiation.id)).data!.contact).toEqual({ client_shared: false, worker_shared: false, counterpart: null });

    const shared = await share(p.worker, negotiation.id);
    expect(shared.response.status).toBe(200);
    // The worker shared theirs; they do not see the client's yet.
    expect(shared.data!.contact).toEqual({ client_shared: false, worker_shared: true, counterpart: null });
    expect((await get(p.client, negotiation.id)).data!.contact).toEqual({
      client_shared: false,
      worker_shared: true,
      counterpart: 'worker@example.com, +1 555 0100',
    });
    expect((await row(negotiation.id))!.workerContactSharedAt).toBeInstanceOf(Date);
    const written = await events(negotiation.id);
    expect(written.at(-1)).toMatchObject({ type: 'negotiation.contact_shared', actorUserId: p.worker.userId });
    // Events are read by both parties: no contact details in them.
    expect((written.at(-1)!.data as { contact: unknown }).contact).toEqual({
      client_shared: false,
      worker_shared: true,
      counterpart: null,
    });
    expect(JSON.stringify(written.map((e) => e.data))).not.toContain('worker@example.com');

    // Sharing again changes nothing and writes no event.
    const again = await share(p.worker, negotiation.id);
    expect(again.response.status).toBe(200);
    expect((await eventTypes(negotiation.id)).filter((t) => t === 'negotiation.contact_shared')).toHaveLength(1);

    await share(p.client, negotiation.id);
    expect((await get(p.worker, negotiation.id)).data!.contact).toEqual({
      client_shared: true,
      worker_shared: true,
      counterpart: 'client@example.com',
    });
    expect((await get(p.client, negotiation.id)).data!.contact.counterpart).toBe('worker@example.com, +1 555 0100');
    // Lists carry no contact details; strangers see nothing.
    const listed = await p.client.api.GET('/api/negotiations');
    expect(listed.data!.data[0]!.contact).toEqual({ client_shared: true, worker_shared: true, counterpart: null });
    expectError(await get(stranger, negotiation.id), 404, 'NOT_FOUND');
  });

  it('a party with no contact details shares null; allowed on an agreed negotiation', async () => {
    const p = await pair();
    await setContact(p.worker.userId, null);
    const { negotiation } = await pendingContract(p.client, p.worker);
    const res = await share(p.worker, negotiation.id);
    expect(res.response.status).toBe(200);
    expect((await get(p.client, negotiation.id)).data!.contact).toEqual({ client_shared: false, worker_shared: true, counterpart: null });
  });

  it('409 on a cancelled negotiation; 404 for a non-party; 401 without credentials', async () => {
    const { negotiation } = await openNegotiation(client, worker);
    expectError(await share(stranger, negotiation.id), 404, 'NOT_FOUND');
    expectError(
      await server.anonymous.POST('/api/negotiations/{id}/contact-share', { params: { path: { id: negotiation.id } } }),
      401,
      'UNAUTHENTICATED',
    );
    await cancelN(client, negotiation.id);
    expectError(await share(client, negotiation.id), 409, 'INVALID_STATE', /cancelled/);
    expect(await row(negotiation.id)).toMatchObject({ clientContactSharedAt: null });
    expect(await eventTypes(negotiation.id)).not.toContain('negotiation.contact_shared');
  });
});
