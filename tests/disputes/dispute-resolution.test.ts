// A dispute's resolution over HTTP on the sandbox provider: each party accepts an outcome, the
// matching second acceptance resolves it, and the settlement job moves the money (refund, release,
// split), lets the contract go and sends the payouts. Races between acceptances, and between an
// acceptance and a withdrawal, have exactly one effect. A payout day is one second here.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { fundedSandboxContract, type Milestone } from '../helpers/lifecycle.ts';

type Api = { api: User['api'] };
const server = testFileServer({ PAYOUT_DAY_SECONDS: '1' });
let client: User;
let stranger: User;

beforeAll(async () => {
  [client, stranger] = await server.users('Resolution Client', 'Stranger');
});

type Outcome = 'release' | 'refund' | 'split';
const accept = (user: Api, id: string, outcome: Outcome, share?: number) =>
  user.api.POST('/api/disputes/{id}/resolution', {
    params: { path: { id } },
    body: (share === undefined ? { outcome } : { outcome, worker_share_percent: share }) as never,
  });
const getDispute = async (id: string) => (await client.api.GET('/api/disputes/{id}', { params: { path: { id } } })).data!;
const getContract = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;
const eventTypes = async (type: string, id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);
const settled = (id: string) =>
  vi.waitFor(async () => expect((await getDispute(id)).resolution?.settled_at).toEqual(expect.any(String)), {
    timeout: 60_000,
    interval: 100,
  });

/** Funded milestones, optionally released (completed contract); the client disputes the first ones; the worker responds. */
async function responded(milestones: Milestone[], opts: { release?: boolean; disputed?: number } = {}) {
  const worker = await server.user('Resolution Worker');
  const { contract } = await fundedSandboxContract(client, worker, milestones);
  const ids = contract.milestones.map((m) => m.id);
  if (opts.release) {
    for (const milestoneId of ids) {
      const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
        params: { path: { id: contract.id, milestoneId } },
      });
      expect(res.response.status).toBe(200);
    }
  }
  const opened = await client.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: contract.id } },
    body: { reason: 'work_not_as_agreed', description: 'Not what we agreed.', milestone_ids: ids.slice(0, opts.disputed ?? 1) },
  });
  expect(opened.response.status).toBe(201);
  const id = opened.data!.id;
  expect(
    (await worker.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'It is.' } })).response.status,
  ).toBe(200);
  return { worker, contract, ids, id };
}

describe('POST /api/disputes/{id}/resolution', () => {
  it('records each acceptance; the matching one resolves the dispute, with how each milestone is divided', async () => {
    const { worker, id, ids } = await responded([{ title: 'Parser', amount_cents: 5_001 }]);
    const first = await accept(client, id, 'refund');
    expect(first.response.status).toBe(200);
    expect(first.data).toMatchObject({
      status: 'responded',
      acceptances: { client: { outcome: 'refund', worker_share_percent: null, accepted_at: expect.any(String) }, worker: null },
      resolution: null,
    });
    const counter = await accept(worker, id, 'split', 50);
    expect(counter.data!.status).toBe('responded');
    // The client changes their mind to the worker's split: resolved, the worker's half rounded down.
    const agreed = await accept(client, id, 'split', 50);
    expect(agreed.response.status).toBe(200);
    expect(agreed.data).toMatchObject({
      status: 'resolved',
      acceptances: { client: { outcome: 'split', worker_share_percent: 50 }, worker: { outcome: 'split', worker_share_percent: 50 } },
      resolution: {
        outcome: 'split',
        worker_share_percent: 50,
        milestones: [{ milestone_id: ids[0], worker_cents: 2_500, refund_cents: 2_501 }],
        resolved_at: expect.any(String),
      },
    });
    expect(await eventTypes('dispute', id)).toEqual([
      'dispute.opened',
      'dispute.responded',
      'dispute.outcome_accepted',
      'dispute.outcome_accepted',
      'dispute.resolved',
    ]);
    expectError(await accept(worker, id, 'split', 50), 409, 'INVALID_STATE', /resolved/);
    await settled(id);
  });

  it('refuses invalid outcomes, strangers, and a dispute not responded yet', async () => {
    const worker = await server.user('Early Worker');
    const { contract } = await fundedSandboxContract(client, worker, [{ title: 'A', amount_cents: 1_000 }]);
    const opened = await client.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: contract.id } },
      body: { reason: 'other', description: 'x', milestone_ids: [contract.milestones[0]!.id] },
    });
    const id = opened.data!.id;
    expectError(await accept(client, id, 'refund'), 409, 'INVALID_STATE', /open/);
    expect((await worker.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'no' } })).response.status).toBe(
      200,
    );
    expectInvalid(await accept(client, id, 'split'), 'body.worker_share_percent');
    expectInvalid(await accept(client, id, 'release', 40), 'body.worker_share_percent');
    expectInvalid(await accept(client, id, 'split', 100), 'body.worker_share_percent');
    expectInvalid(await accept(client, id, 'split', 0), 'body.worker_share_percent');
    expectInvalid(await accept(client, id, 'keep' as never), 'body.outcome');
    expectError(await accept(stranger, id, 'refund'), 404, 'NOT_FOUND');
    expectError(await accept({ api: server.anonymous }, id, 'refund'), 401, 'UNAUTHENTICATED');
    expectError(await accept(client, newId(), 'refund'), 404, 'NOT_FOUND');
    expect((await getDispute(id)).acceptances).toEqual({ client: null, worker: null });
  });
});

describe('settlement', () => {
  it('refunds a funded milestone to the client; the contract returns to active, its other milestone untouched', async () => {
    const { worker, contract, ids, id } = await responded([
      { title: 'Parser', amount_cents: 5_000 },
      { title: 'Docs', amount_cents: 2_000 },
    ]);
    await accept(worker, id, 'refund');
    expect((await accept(client, id, 'refund')).data!.status).toBe('resolved');
    await settled(id);
    const after = await getContract(contract.id);
    expect(after.status).toBe('active');
    expect(after.milestones.map((m) => [m.status, m.refunded_cents])).toEqual([
      ['refunded', 5_000],
      ['funded', 0],
    ]);
    expect(await eventTypes('milestone', ids[0]!)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.refunded']);
    expect((await eventTypes('contract', contract.id)).slice(-2)).toEqual(['contract.disputed', 'contract.dispute_closed']);
    // The rest of the contract goes on: the other milestone is released and paid; the contract completes.
    const release = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
      params: { path: { id: contract.id, milestoneId: ids[1]! } },
    });
    expect(release.data!.contract.status).toBe('completed');
  });

  it('releases to the worker: a held payout of a completed contract is paid at once', async () => {
    const { worker, contract, id } = await responded([{ title: 'Parser', amount_cents: 4_000 }], { release: true });
    await accept(client, id, 'release');
    await accept(worker, id, 'release');
    await settled(id);
    await vi.waitFor(async () => expect((await getContract(contract.id)).milestones[0]!.status).toBe('paid'), {
      timeout: 60_000,
      interval: 100,
    });
    const after = await getContract(contract.id);
    expect(after.status).toBe('completed');
    expect(after.milestones[0]!.refunded_cents).toBe(0);
  });

  it('splits: the client gets their part back, the worker is paid the rest, the contract completes', async () => {
    const { worker, contract, ids, id } = await responded([{ title: 'Parser', amount_cents: 5_000 }]);
    await accept(client, id, 'split', 60);
    await accept(worker, id, 'split', 60);
    await settled(id);
    await vi.waitFor(async () => expect((await getContract(contract.id)).milestones[0]!.status).toBe('paid'), {
      timeout: 60_000,
      interval: 100,
    });
    const after = await getContract(contract.id);
    expect(after.status).toBe('completed');
    expect(after.milestones[0]).toMatchObject({ refunded_cents: 2_000, amount_cents: 5_000 });
    expect(await eventTypes('milestone', ids[0]!)).toEqual([
      'milestone.funding',
      'milestone.funded',
      'milestone.released',
      'milestone.refunded',
      'milestone.paid',
    ]);
  });

  it('takes two matching acceptances at once as one resolution, settled once', async () => {
    const { worker, id } = await responded([{ title: 'Parser', amount_cents: 3_000 }]);
    const both = await Promise.all([accept(client, id, 'refund'), accept(worker, id, 'refund')]);
    expect(both.map((r) => r.response.status)).toEqual([200, 200]);
    expect(both.map((r) => r.data!.status).sort()).toEqual(['resolved', 'responded']);
    await settled(id);
    expect((await eventTypes('dispute', id)).filter((t) => t === 'dispute.resolved')).toHaveLength(1);
  });

  it('lets an acceptance and a withdrawal race to exactly one effect', async () => {
    for (let i = 0; i < 3; i++) {
      const { worker, contract, id } = await responded([{ title: 'Parser', amount_cents: 3_000 }]);
      await accept(worker, id, 'release');
      const [accepted, withdrawn] = await Promise.all([
        accept(client, id, 'release'),
        client.api.POST('/api/disputes/{id}/withdraw', { params: { path: { id } } }),
      ]);
      const statuses = [accepted.response.status, withdrawn.response.status].sort();
      expect(statuses).toEqual([200, 409]);
      const dispute = await getDispute(id);
      expect(dispute.status).toBe(accepted.response.status === 200 ? 'resolved' : 'withdrawn');
      if (dispute.status === 'resolved') await settled(id);
      const closed = (await eventTypes('contract', contract.id)).filter((t) => t === 'contract.dispute_closed');
      expect(closed).toHaveLength(1);
    }
  });
});
