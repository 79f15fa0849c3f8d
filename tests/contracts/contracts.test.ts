// Contracts over HTTP with the parties' keys (and one browser session): list, get, approve,
// revise, cancel, connect-link; each for success (body, DB, event), invalid input, no credentials,
// a non-party, the wrong role and the wrong state. Then races fired with Promise.all, each with
// exactly one consistent outcome in the database and in the events.
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import {
  activeSandboxContract,
  approvedContract,
  asApproval,
  pendingContract,
  submitSandboxOnboarding,
  type Milestone,
} from '../helpers/lifecycle.ts';
import { signInDev } from '../helpers/session.ts';
import { contracts, milestones as milestoneTable, negotiations, paymentAccounts } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { expectInvalid, expectError } from '../helpers/expect-error.ts';

const server = testFileServer();
type Party = { api: User['api']; userId: string };
let stranger: User;

beforeAll(async () => {
  stranger = await server.user('Stranger');
});

/** A new client and worker for each test: contracts of one test never meet another's. */
async function pair() {
  return { client: await server.user('Client'), worker: await server.user('Worker') };
}

const approve = async (user: Party, id: string) =>
  asApproval(await user.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } }));
const revise = (user: Party, id: string, body: Record<string, unknown>) =>
  user.api.POST('/api/contracts/{id}/revise', { params: { path: { id } }, body: body as never });
const cancel = (user: Party, id: string) => user.api.POST('/api/contracts/{id}/cancel', { params: { path: { id } } });
const connectLink = (user: Party, id: string) => user.api.GET('/api/contracts/{id}/connect-link', { params: { path: { id } } });
const getContract = (user: Party, id: string) => user.api.GET('/api/contracts/{id}', { params: { path: { id } } });
const getNegotiation = (user: Party, id: string) => user.api.GET('/api/negotiations/{id}', { params: { path: { id } } });
const propose = (user: Party, id: string, body: Record<string, unknown>) =>
  user.api.POST('/api/negotiations/{id}/rounds', { params: { path: { id } }, body: body as never });
const agree = (user: Party, id: string) => user.api.POST('/api/negotiations/{id}/agree', { params: { path: { id } } });

const row = async (id: string) => (await server.db.select().from(contracts).where(eq(contracts.id, id)))[0]!;
const negotiationRow = async (id: string) => (await server.db.select().from(negotiations).where(eq(negotiations.id, id)))[0]!;
const contractEvents = (id: string) => eventsForResource(server.db, 'contract', id);
const contractEventTypes = async (id: string) => (await contractEvents(id)).map((e) => e.type);
const negotiationEventTypes = async (id: string) => (await eventsForResource(server.db, 'negotiation', id)).map((e) => e.type);
const count = (types: string[], type: string) => types.filter((t) => t === type).length;

describe('GET /api/contracts and /api/contracts/{id}', () => {
  it('both parties see the contract with its milestones; nobody else does', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker, [
      { title: 'One', amount_cents: 100 },
      { title: 'Two', amount_cents: 0 },
    ]);
    for (const party of [p.client, p.worker]) {
      const res = await getContract(party, contract.id);
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual(contract);
    }
    expect(contract.milestones.map((m) => [m.position, m.title, m.amount_cents, m.status])).toEqual([
      [1, 'One', 100, 'pending'],
      [2, 'Two', 0, 'pending'],
    ]);
    expectError(await getContract(stranger, contract.id), 404, 'NOT_FOUND');
    expectError(await getContract(p.client, newId()), 404, 'NOT_FOUND');
    expectInvalid(await getContract(p.client, '42'), 'path.id');
    expectError(await server.anonymous.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } }), 401, 'UNAUTHENTICATED');
  });

  it("lists the caller's contracts newest first, by status, in pages", async () => {
    const p = await pair();
    const a = await pendingContract(p.client, p.worker);
    const b = await pendingContract(p.client, p.worker);
    await cancel(p.worker, a.contract.id);
    for (const party of [p.client, p.worker]) {
      const all = await party.api.GET('/api/contracts');
      expect(all.response.status).toBe(200);
      expect(all.data!.data.map((c) => c.id)).toEqual([b.contract.id, a.contract.id]);
      expect(all.data!.data[0]!.milestones).toHaveLength(1);
    }
    const pending = await p.client.api.GET('/api/contracts', { params: { query: { status: 'pending_owner_approval' } } });
    expect(pending.data!.data.map((c) => c.id)).toEqual([b.contract.id]);
    const cancelled = await p.worker.api.GET('/api/contracts', { params: { query: { status: 'cancelled' } } });
    expect(cancelled.data!.data.map((c) => c.id)).toEqual([a.contract.id]);
    const active = await p.worker.api.GET('/api/contracts', { params: { query: { status: 'active' } } });
    expect(active.data!.data).toEqual([]);

    const first = await p.client.api.GET('/api/contracts', { params: { query: { limit: 1 } } });
    expect(first.data!.data.map((c) => c.id)).toEqual([b.contract.id]);
    const second = await p.client.api.GET('/api/contracts', { params: { query: { limit: 1, cursor: first.data!.next_cursor! } } });
    expect(second.data!.data.map((c) => c.id)).toEqual([a.contract.id]);
    expect(second.data!.next_cursor).toBeNull();

    const theirs = await stranger.api.GET('/api/contracts');
    expect(theirs.data!.data.map((c) => c.id)).not.toContain(a.contract.id);
    expect(theirs.data!.data.map((c) => c.id)).not.toContain(b.contract.id);
  });

  it('rejects a bad filter; 401 without credentials', async () => {
    expectInvalid(await stranger.api.GET('/api/contracts', { params: { query: { status: 'signed' as never } } }), 'query.status');
    expectInvalid(await stranger.api.GET('/api/contracts', { params: { query: { limit: 101 } } }), 'query.limit');
    expectError(await server.anonymous.GET('/api/contracts'), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /api/contracts/{id}/approve', () => {
  it('the first approval is recorded; the second moves the contract to pending_freelancer_kyc with connect_url', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    const first = await approve(p.client, contract.id);
    expect(first.response.status).toBe(200);
    expect(first.data!.connect_url).toBeNull();
    expect(first.data!.contract).toMatchObject({ status: 'pending_owner_approval', worker_approved_at: null });
    expect(first.data!.contract.client_approved_at).toEqual(expect.any(String));
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval', workerApprovedAt: null });
    let written = await contractEvents(contract.id);
    expect(written.map((e) => e.type)).toEqual(['contract.created', 'contract.approved']);
    expect(written[1]).toMatchObject({ actorUserId: p.client.userId, data: first.data!.contract });

    const second = await approve(p.worker, contract.id);
    expect(second.response.status).toBe(200);
    expect(second.data!.contract).toMatchObject({
      status: 'pending_freelancer_kyc',
      client_approved_at: first.data!.contract.client_approved_at,
    });
    expect(second.data!.contract.worker_approved_at).toEqual(expect.any(String));
    expect(second.data!.connect_url).toMatch(new RegExp(`^${server.url}/sandbox/connect/acct_sandbox_`));
    expect(await row(contract.id)).toMatchObject({ status: 'pending_freelancer_kyc' });
    written = await contractEvents(contract.id);
    expect(written.map((e) => e.type)).toEqual([
      'contract.created',
      'contract.approved',
      'contract.approved',
      'contract.pending_freelancer_kyc',
    ]);
    expect(written[3]).toMatchObject({ actorUserId: p.worker.userId, data: second.data!.contract });
    const [account] = await server.db.select().from(paymentAccounts).where(eq(paymentAccounts.userId, p.worker.userId));
    expect(account).toMatchObject({ provider: 'sandbox', verifiedAt: null });
    // The link opens the sandbox's onboarding page.
    const page = await fetch(second.data!.connect_url!);
    expect(page.status).toBe(200);
  });

  it('an approval by browser session counts the same as by key', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    const session = await signInDev(server, { userId: p.worker.userId });
    const bySession = await approve(session, contract.id);
    expect(bySession.response.status).toBe(200);
    expect(bySession.data!.contract.worker_approved_at).toEqual(expect.any(String));
    // The same owner approving again by key is a second approval by the same party.
    expectError(await approve(p.worker, contract.id), 409, 'CONFLICT', /already approved/);
    const byKey = await approve(p.client, contract.id);
    expect(byKey.data!.contract.status).toBe('pending_freelancer_kyc');
    expect(byKey.data!.connect_url).toBeNull(); // the client's approval: the link is the worker's
    const written = await contractEvents(contract.id);
    expect(written.filter((e) => e.type === 'contract.approved').map((e) => e.actorUserId)).toEqual([p.worker.userId, p.client.userId]);
  });

  it("the onboarding link goes to the worker only: the client's second approval carries none", async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    expect((await approve(p.worker, contract.id)).data!.connect_url).toBeNull();
    const second = await approve(p.client, contract.id);
    expect(second.response.status).toBe(200);
    expect(second.data!.contract.status).toBe('pending_freelancer_kyc');
    // Whoever opens the link completes the worker's identity checks and names the bank account
    // payouts go to: it is the worker's alone, as GET connect-link is.
    expect(second.data!.connect_url).toBeNull();
    expectError(await connectLink(p.client, contract.id), 403, 'FORBIDDEN', /worker/);
    const link = await connectLink(p.worker, contract.id);
    expect(link.data!.connect_url).toMatch(new RegExp(`^${server.url}/sandbox/connect/acct_sandbox_`));
    expect((await submitSandboxOnboarding(link.data!.connect_url)).status).toBe(303);
    expect((await row(contract.id)).status).toBe('active');
  });

  it('a worker who already passed KYC goes straight to active, with connect_url null', async () => {
    const p = await pair();
    const first = await approvedContract(p.client, p.worker);
    expect((await submitSandboxOnboarding(first.connectUrl)).status).toBe(303);
    expect((await row(first.contract.id)).status).toBe('active');
    const [account] = await server.db.select().from(paymentAccounts).where(eq(paymentAccounts.userId, p.worker.userId));
    expect(account!.verifiedAt).toBeInstanceOf(Date);

    const { contract } = await pendingContract(p.client, p.worker);
    await approve(p.worker, contract.id);
    const second = await approve(p.client, contract.id);
    expect(second.response.status).toBe(200);
    expect(second.data!.connect_url).toBeNull();
    expect(second.data!.contract.status).toBe('active');
    expect(second.data!.contract.activated_at).toEqual(expect.any(String));
    expect(await row(contract.id)).toMatchObject({ status: 'active' });
    expect(await contractEventTypes(contract.id)).toEqual([
      'contract.created',
      'contract.approved',
      'contract.approved',
      'contract.pending_freelancer_kyc',
      'contract.active',
    ]);
    // Still one provider account for the worker.
    expect(await server.db.select().from(paymentAccounts).where(eq(paymentAccounts.userId, p.worker.userId))).toHaveLength(1);
  });

  it('409 when not pending_owner_approval (kyc, active, negotiation, cancelled); nothing written', async () => {
    const p = await pair();
    const kyc = await approvedContract(p.client, p.worker);
    expectError(await approve(p.client, kyc.contract.id), 409, 'INVALID_STATE', /pending_freelancer_kyc/);
    const active = await activeSandboxContract(p.client, (await pair()).worker);
    expectError(await approve(p.client, active.contract.id), 409, 'INVALID_STATE', /active/);
    const revised = await pendingContract(p.client, p.worker);
    await revise(p.worker, revised.contract.id, { notes: 'More money' });
    expectError(await approve(p.client, revised.contract.id), 409, 'INVALID_STATE', /negotiation/);
    const cancelled = await pendingContract(p.client, (await pair()).worker);
    await cancel(p.client, cancelled.contract.id);
    expectError(await approve(p.client, cancelled.contract.id), 409, 'INVALID_STATE', /cancelled/);
    for (const id of [kyc.contract.id, active.contract.id, revised.contract.id, cancelled.contract.id]) {
      expect(count(await contractEventTypes(id), 'contract.approved')).toBe(
        id === revised.contract.id || id === cancelled.contract.id ? 0 : 2,
      );
    }
  });

  it('an approval naming an earlier revision_count is refused once the contract was revised and agreed again; nothing recorded', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    const approveSeen = async (user: Party, revision: unknown) =>
      asApproval(
        await user.api.POST('/api/contracts/{id}/approve', {
          params: { path: { id: contract.id } },
          body: { revision_count: revision } as never,
        }),
      );
    // The owner saw revision 0; meanwhile the worker revises and both agree to new terms.
    expect((await revise(p.worker, contract.id, { notes: 'More hours.' })).response.status).toBe(200);
    const round = await propose(p.client, negotiation.id, {
      rate_cents: 9000,
      hours_per_week: 30,
      start_date: '2027-01-04',
      payout_delay_days: 5,
      milestones: [{ title: 'All', amount_cents: 10_000 }],
    });
    expect(round.response.status).toBe(201);
    expect((await agree(p.worker, negotiation.id)).response.status).toBe(200);
    const eventsBefore = await contractEventTypes(contract.id);

    const stale = await approveSeen(p.client, 0);
    expectError(stale, 409, 'INVALID_STATE', /revised since revision_count 0: it is at 1/);
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval', clientApprovedAt: null, revisionCount: 1 });
    expect(await contractEventTypes(contract.id)).toEqual(eventsBefore);

    // The terms the owner has now seen: approved, by either party.
    const current = await approveSeen(p.client, 1);
    expect(current.response.status).toBe(200);
    expect(current.data!.contract).toMatchObject({ client_approved_at: expect.any(String), revision_count: 1 });
    expect((await approveSeen(p.worker, 1)).data!.contract.status).toBe('pending_freelancer_kyc');
  });

  it('400 for a revision_count that is not a non-negative integer, or another field; nothing recorded', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    for (const body of [{ revision_count: -1 }, { revision_count: 1.5 }, { revision_count: '0' }, { revision: 0 }]) {
      const res = await p.client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } }, body: body as never });
      expectInvalid(res, 'revision_count' in body ? 'body.revision_count' : 'body.revision');
    }
    expect((await row(contract.id)).clientApprovedAt).toBeNull();
    // The matching one is accepted.
    const ok = await p.client.api.POST('/api/contracts/{id}/approve', {
      params: { path: { id: contract.id } },
      body: { revision_count: 0 },
    });
    expect(ok.response.status).toBe(200);
  });

  it('401 without credentials; 404 for a non-party; 400 for a bad id', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    expectError(
      await server.anonymous.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await approve(stranger, contract.id), 404, 'NOT_FOUND');
    expectError(await approve(p.client, newId()), 404, 'NOT_FOUND');
    expectInvalid(await approve(p.client, 'x'), 'path.id');
    expect(await row(contract.id)).toMatchObject({ clientApprovedAt: null, workerApprovedAt: null });
    expect(await contractEventTypes(contract.id)).toEqual(['contract.created']);
  });
});

describe('GET /api/contracts/{id}/connect-link', () => {
  it('gives the worker a fresh onboarding link while pending_freelancer_kyc', async () => {
    const p = await pair();
    const { contract } = await approvedContract(p.client, p.worker);
    const res = await connectLink(p.worker, contract.id);
    expect(res.response.status).toBe(200);
    expect(res.data!.provider).toBe('sandbox');
    expect(res.data!.connect_url).toMatch(new RegExp(`^${server.url}/sandbox/connect/acct_sandbox_`));
    expect((await fetch(res.data!.connect_url)).status).toBe(200);
    // Completing onboarding at the fresh link activates the contract.
    expect((await submitSandboxOnboarding(res.data!.connect_url)).status).toBe(303);
    expect((await row(contract.id)).status).toBe('active');
  });

  it('403 for the client; 404 for a non-party; 401 without credentials', async () => {
    const p = await pair();
    const { contract } = await approvedContract(p.client, p.worker);
    expectError(await connectLink(p.client, contract.id), 403, 'FORBIDDEN', /worker/);
    expectError(await connectLink(stranger, contract.id), 404, 'NOT_FOUND');
    expectError(await connectLink(p.worker, newId()), 404, 'NOT_FOUND');
    expectInvalid(await connectLink(p.worker, 'x'), 'path.id');
    expectError(
      await server.anonymous.GET('/api/contracts/{id}/connect-link', { params: { path: { id: contract.id } } }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it('409 outside pending_freelancer_kyc', async () => {
    const p = await pair();
    const pending = await pendingContract(p.client, p.worker);
    expectError(await connectLink(p.worker, pending.contract.id), 409, 'INVALID_STATE', /pending_owner_approval/);
    const active = await activeSandboxContract(p.client, p.worker);
    expectError(await connectLink(p.worker, active.contract.id), 409, 'INVALID_STATE', /active/);
  });
});

describe('POST /api/contracts/{id}/revise', () => {
  it('sends the contract back to negotiation; new rounds and a new agree bring the same contract back with the new terms', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    await approve(p.client, contract.id);

    const res = await revise(p.worker, contract.id, { notes: '  Two milestones, please.  ' });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      id: contract.id,
      status: 'negotiation',
      client_approved_at: null,
      worker_approved_at: null,
      approval_deadline: null,
      revision_notes: 'Two milestones, please.',
      revision_count: 1,
    });
    expect(await row(contract.id)).toMatchObject({
      status: 'negotiation',
      clientApprovedAt: null,
      approvalDeadline: null,
      revisionCount: 1,
    });
    const reopened = await getNegotiation(p.client, negotiation.id);
    // Open again, with no party singled out: the agreed round is settled, either may propose.
    expect(reopened.data).toMatchObject({ status: 'open', agreed_at: null, contract_id: contract.id, awaiting: null });
    const listed = await p.worker.api.GET('/api/negotiations', { params: { query: { gig_id: negotiation.gig_id } } });
    expect(listed.data!.data[0]).toMatchObject({ id: negotiation.id, status: 'open', awaiting: null });
    let events = await contractEvents(contract.id);
    expect(events.at(-1)).toMatchObject({ type: 'contract.revised', actorUserId: p.worker.userId, data: res.data });
    const reopenedEvent = (await eventsForResource(server.db, 'negotiation', negotiation.id)).at(-1)!;
    expect(reopenedEvent).toMatchObject({
      type: 'negotiation.reopened',
      actorUserId: p.worker.userId,
      data: { status: 'open', awaiting: null, contract_id: contract.id },
    });

    // The round the contract holds cannot be agreed to again: new terms first.
    expectError(await agree(p.worker, negotiation.id), 409, 'INVALID_STATE', /already/);
    // Either party may open the new rounds (here the client, who proposed the agreed round too).
    const two: Milestone[] = [
      { title: 'Half', amount_cents: 5_000, due_date: '2026-12-10' },
      { title: 'Rest', amount_cents: 5_000 },
    ];
    const round = await propose(p.client, negotiation.id, {
      rate_cents: 8500,
      hours_per_week: 12,
      start_date: '2027-01-04',
      payout_delay_days: 10,
      milestones: two,
    });
    expect(round.response.status).toBe(201);
    expect(round.data!.rounds.map((r) => r.proposed_by)).toEqual(['client', 'client']);
    expect(round.data!.awaiting).toBe('worker');

    const again = await agree(p.worker, negotiation.id);
    expect(again.response.status).toBe(200);
    const updated = again.data!.contract;
    expect(updated).toMatchObject({
      id: contract.id,
      status: 'pending_owner_approval',
      rate_cents: 8500,
      hours_per_week: 12,
      start_date: '2027-01-04',
      payout_delay_days: 10,
      client_approved_at: null,
      worker_approved_at: null,
      revision_count: 1,
      revision_notes: 'Two milestones, please.',
    });
    expect(updated.milestones.map((m) => [m.position, m.title, m.amount_cents])).toEqual([
      [1, 'Half', 5_000],
      [2, 'Rest', 5_000],
    ]);
    expect(Date.parse(updated.approval_deadline!)).toBeGreaterThan(Date.parse(contract.approval_deadline!));
    expect(again.data!.negotiation).toMatchObject({ status: 'agreed', contract_id: contract.id });
    expect(await server.db.select().from(contracts).where(eq(contracts.negotiationId, negotiation.id))).toHaveLength(1);
    expect(await server.db.select().from(milestoneTable).where(eq(milestoneTable.contractId, contract.id))).toHaveLength(2);
    events = await contractEvents(contract.id);
    expect(events.map((e) => e.type)).toEqual(['contract.created', 'contract.approved', 'contract.revised', 'contract.updated']);
    expect(events.at(-1)).toMatchObject({ data: updated });

    // And the lifecycle carries on from there.
    await approve(p.client, contract.id);
    expect((await approve(p.worker, contract.id)).data!.contract.status).toBe('pending_freelancer_kyc');
  });

  it('is allowed from pending_freelancer_kyc', async () => {
    const p = await pair();
    const { contract } = await approvedContract(p.client, p.worker);
    const res = await revise(p.client, contract.id, { notes: 'Start later' });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'negotiation', client_approved_at: null, worker_approved_at: null });
    expectError(await connectLink(p.worker, contract.id), 409, 'INVALID_STATE', /negotiation/);
  });

  it('requires notes: 400 naming the field; nothing changes', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    expectInvalid(await revise(p.client, contract.id, {}), 'body.notes');
    expectInvalid(await revise(p.client, contract.id, { notes: '' }), 'body.notes');
    expectInvalid(await revise(p.client, contract.id, { notes: '   ' }), 'body.notes');
    expectInvalid(await revise(p.client, contract.id, { notes: 'x'.repeat(5001) }), 'body.notes');
    expectInvalid(await revise(p.client, contract.id, { notes: 'ok', rate_cents: 1 }), 'body.rate_cents');
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval', revisionCount: 0 });
  });

  it('409 from active, from negotiation and from cancelled', async () => {
    const p = await pair();
    const active = await activeSandboxContract(p.client, p.worker);
    expectError(await revise(p.client, active.contract.id, { notes: 'Too late' }), 409, 'INVALID_STATE', /active/);
    const twice = await pendingContract(p.client, p.worker);
    await revise(p.client, twice.contract.id, { notes: 'Once' });
    expectError(await revise(p.worker, twice.contract.id, { notes: 'Twice' }), 409, 'INVALID_STATE', /negotiation/);
    expect(await row(twice.contract.id)).toMatchObject({ revisionCount: 1, revisionNotes: 'Once' });
    const cancelled = await pendingContract(p.client, (await pair()).worker);
    await cancel(p.client, cancelled.contract.id);
    expectError(await revise(p.client, cancelled.contract.id, { notes: 'Hm' }), 409, 'INVALID_STATE', /cancelled/);
    expect(await row(active.contract.id)).toMatchObject({ status: 'active', revisionCount: 0 });
  });

  it('401 without credentials; 404 for a non-party', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    expectError(
      await server.anonymous.POST('/api/contracts/{id}/revise', { params: { path: { id: contract.id } }, body: { notes: 'x' } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await revise(stranger, contract.id, { notes: 'x' }), 404, 'NOT_FOUND');
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval' });
  });
});

describe('POST /api/contracts/{id}/cancel', () => {
  it('a party cancels a pending contract; its negotiation ends with it', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    const res = await cancel(p.worker, contract.id);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ id: contract.id, status: 'cancelled' });
    expect(res.data!.cancelled_at).toEqual(expect.any(String));
    expect(await row(contract.id)).toMatchObject({ status: 'cancelled' });
    expect(await negotiationRow(negotiation.id)).toMatchObject({ status: 'cancelled' });
    const events = await contractEvents(contract.id);
    expect(events.at(-1)).toMatchObject({ type: 'contract.cancelled', actorUserId: p.worker.userId, data: res.data });
    expect((await negotiationEventTypes(negotiation.id)).at(-1)).toBe('negotiation.cancelled');
  });

  it('works from pending_freelancer_kyc and from negotiation', async () => {
    const p = await pair();
    const kyc = await approvedContract(p.client, p.worker);
    expect((await cancel(p.client, kyc.contract.id)).data!.status).toBe('cancelled');
    const revised = await pendingContract(p.client, p.worker);
    await revise(p.client, revised.contract.id, { notes: 'Changes' });
    expect((await cancel(p.worker, revised.contract.id)).data!.status).toBe('cancelled');
    expect(await negotiationRow(revised.negotiation.id)).toMatchObject({ status: 'cancelled' });
  });

  it('cancelling the re-opened negotiation cancels the contract waiting on it', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    await revise(p.client, contract.id, { notes: 'Changes' });
    const res = await p.worker.api.POST('/api/negotiations/{id}/cancel', { params: { path: { id: negotiation.id } } });
    expect(res.response.status).toBe(200);
    expect(await row(contract.id)).toMatchObject({ status: 'cancelled' });
    expect((await contractEventTypes(contract.id)).at(-1)).toBe('contract.cancelled');
    expect(count(await negotiationEventTypes(negotiation.id), 'negotiation.cancelled')).toBe(1);
  });

  it('409 from active and when cancelled already', async () => {
    const p = await pair();
    const active = await activeSandboxContract(p.client, p.worker);
    expectError(await cancel(p.client, active.contract.id), 409, 'INVALID_STATE', /active/);
    expect(await row(active.contract.id)).toMatchObject({ status: 'active', cancelledAt: null });
    const pending = await pendingContract(p.client, p.worker);
    await cancel(p.client, pending.contract.id);
    expectError(await cancel(p.worker, pending.contract.id), 409, 'INVALID_STATE', /cancelled/);
    expect(count(await contractEventTypes(pending.contract.id), 'contract.cancelled')).toBe(1);
  });

  it('401 without credentials; 404 for a non-party', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    expectError(
      await server.anonymous.POST('/api/contracts/{id}/cancel', { params: { path: { id: contract.id } } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await cancel(stranger, contract.id), 404, 'NOT_FOUND');
    expectInvalid(await cancel(p.client, 'x'), 'path.id');
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval' });
  });
});

describe('races', () => {
  it('both parties approving at once: both approvals recorded, one contract.pending_freelancer_kyc', async () => {
    for (let i = 0; i < 3; i++) {
      const p = await pair();
      const { contract } = await pendingContract(p.client, p.worker);
      const [a, b] = await Promise.all([approve(p.client, contract.id), approve(p.worker, contract.id)]);
      expect([a.response.status, b.response.status]).toEqual([200, 200]);
      // One of them saw the other's approval and moved the contract on; that one carries the link
      // when it is the worker's.
      const last = [a, b].find((r) => r.data!.contract.status === 'pending_freelancer_kyc')!;
      const firstOne = [a, b].find((r) => r !== last)!;
      expect(firstOne.data!.contract.status).toBe('pending_owner_approval');
      expect(firstOne.data!.connect_url).toBeNull();
      if (last === b) expect(last.data!.connect_url).toEqual(expect.any(String));
      else expect(last.data!.connect_url).toBeNull();
      const stored = await row(contract.id);
      expect(stored).toMatchObject({ status: 'pending_freelancer_kyc' });
      expect(stored.clientApprovedAt).toBeInstanceOf(Date);
      expect(stored.workerApprovedAt).toBeInstanceOf(Date);
      const types = await contractEventTypes(contract.id);
      expect(count(types, 'contract.approved')).toBe(2);
      expect(count(types, 'contract.pending_freelancer_kyc')).toBe(1);
      expect(types.at(-1)).toBe('contract.pending_freelancer_kyc');
    }
  });

  it('the same party approving twice at once: one 200, one 409', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    const session = await signInDev(server, { userId: p.client.userId });
    const results = await Promise.all([approve(p.client, contract.id), approve(session, contract.id)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expectError(results.find((r) => r.response.status === 409)!, 409, 'CONFLICT');
    expect(await row(contract.id)).toMatchObject({ status: 'pending_owner_approval', workerApprovedAt: null });
    expect(count(await contractEventTypes(contract.id), 'contract.approved')).toBe(1);
  });

  it('approve against revise: the contract ends in negotiation with no approvals, events in one order', async () => {
    for (let i = 0; i < 3; i++) {
      const p = await pair();
      const { negotiation, contract } = await pendingContract(p.client, p.worker);
      await approve(p.client, contract.id);
      const [approved, revised] = await Promise.all([approve(p.worker, contract.id), revise(p.client, contract.id, { notes: 'Wait' })]);
      expect(revised.response.status).toBe(200);
      const stored = await row(contract.id);
      expect(stored).toMatchObject({ status: 'negotiation', clientApprovedAt: null, workerApprovedAt: null, revisionCount: 1 });
      expect(await negotiationRow(negotiation.id)).toMatchObject({ status: 'open' });
      const types = (await contractEventTypes(contract.id)).slice(2); // after contract.created and the client's approval
      if (approved.response.status === 200) {
        // The approval came first: the contract went to KYC, then the revise sent it back.
        expect(approved.data!.contract.status).toBe('pending_freelancer_kyc');
        expect(types).toEqual(['contract.approved', 'contract.pending_freelancer_kyc', 'contract.revised']);
      } else {
        expectError(approved, 409, 'INVALID_STATE', /negotiation/);
        expect(types).toEqual(['contract.revised']);
      }
    }
  });

  it('approve against cancel: one consistent end, cancelled', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    await approve(p.client, contract.id);
    const [approved, cancelled] = await Promise.all([approve(p.worker, contract.id), cancel(p.client, contract.id)]);
    expect(cancelled.response.status).toBe(200);
    expect(await row(contract.id)).toMatchObject({ status: 'cancelled' });
    const types = await contractEventTypes(contract.id);
    expect(count(types, 'contract.cancelled')).toBe(1);
    expect(count(types, 'contract.pending_freelancer_kyc')).toBe(approved.response.status === 200 ? 1 : 0);
  });

  it('agreeing again against cancelling the revised contract: cancelled, never a deadlock', async () => {
    for (let i = 0; i < 5; i++) {
      const p = await pair();
      const { negotiation, contract } = await pendingContract(p.client, p.worker);
      await revise(p.client, contract.id, { notes: 'Less' });
      await propose(p.worker, negotiation.id, { rate_cents: 7000, milestones: [{ title: 'All', amount_cents: 7000 }] });
      const [agreed, cancelled] = await Promise.all([agree(p.client, negotiation.id), cancel(p.worker, contract.id)]);
      expect(cancelled.response.status).toBe(200);
      expect(await row(contract.id)).toMatchObject({ status: 'cancelled' });
      expect(await negotiationRow(negotiation.id)).toMatchObject({ status: 'cancelled' });
      const types = await contractEventTypes(contract.id);
      expect(count(types, 'contract.cancelled')).toBe(1);
      if (agreed.response.status === 200) expect(count(types, 'contract.updated')).toBe(1);
      else {
        expectError(agreed, 409, 'INVALID_STATE', /cancelled/);
        expect(count(types, 'contract.updated')).toBe(0);
      }
    }
  });

  it('cancelling the re-opened negotiation against cancelling its contract: one 200, one 409', async () => {
    for (let i = 0; i < 5; i++) {
      const p = await pair();
      const { negotiation, contract } = await pendingContract(p.client, p.worker);
      await revise(p.client, contract.id, { notes: 'Less' });
      const results = await Promise.all([
        p.worker.api.POST('/api/negotiations/{id}/cancel', { params: { path: { id: negotiation.id } } }),
        cancel(p.client, contract.id),
      ]);
      expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
      expect(await row(contract.id)).toMatchObject({ status: 'cancelled' });
      expect(await negotiationRow(negotiation.id)).toMatchObject({ status: 'cancelled' });
      expect(count(await contractEventTypes(contract.id), 'contract.cancelled')).toBe(1);
      expect(count(await negotiationEventTypes(negotiation.id), 'negotiation.cancelled')).toBe(1);
    }
  });

  it('revise against revise: one 200, one 409; one reopening', async () => {
    const p = await pair();
    const { negotiation, contract } = await pendingContract(p.client, p.worker);
    const results = await Promise.all([revise(p.client, contract.id, { notes: 'A' }), revise(p.worker, contract.id, { notes: 'B' })]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expect(await row(contract.id)).toMatchObject({ status: 'negotiation', revisionCount: 1 });
    expect(count(await negotiationEventTypes(negotiation.id), 'negotiation.reopened')).toBe(1);
  });
});

describe('one live negotiation per gig and worker', () => {
  it('a revise never finds a second open negotiation beside the reopened one', async () => {
    const p = await pair();
    const { gig, contract } = await pendingContract(p.client, p.worker);
    // Starting over while the contract can still be revised is refused...
    const other = await p.client.api.POST('/api/negotiations', { body: { gig_id: gig.id, worker_user_id: p.worker.userId } });
    expectError(other, 409, 'CONFLICT');
    // ...so the revise reopens the only negotiation there is.
    expect((await revise(p.worker, contract.id, { notes: 'Changes' })).response.status).toBe(200);
    const open = await server.db
      .select()
      .from(negotiations)
      .where(and(eq(negotiations.gigId, gig.id), eq(negotiations.status, 'open')));
    expect(open).toHaveLength(1);
  });
});
