// Funding and releasing milestones, and the delayed payout, over HTTP with the Stripe provider:
// the real stripe-node SDK against the local fake of Stripe's API (docs/architecture.md §5 milestones, §7).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import type { TestServer, TestUser as User } from '../helpers/server.ts';
import { activeStripeContract, payAtStripe, startStripeServer } from '../helpers/stripe-mode.ts';
import { approvedContract, pendingContract, type Milestone } from '../helpers/lifecycle.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { milestones as milestonesTable } from '../../db/schema.ts';
import { payout } from '../../src/services/milestones.ts';
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE } from '../../src/job-system/queues.ts';
import { newId } from '../../src/ids.ts';
import { createStripeProvider } from '../../src/payments/stripe.ts';
import { expectError } from '../helpers/expect-error.ts';
import { gate } from '../helpers/gate.ts';

const TIMEOUT_MS = 1000;
const DAY_SECONDS = 1;

let fake: FakeStripe;
let server: TestServer;
let client: User;
let stranger: User;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startStripeServer(fake, { STRIPE_TIMEOUT_MS: String(TIMEOUT_MS), PAYOUT_DAY_SECONDS: String(DAY_SECONDS) });
  [client, stranger] = await server.users('Client', 'Stranger');
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const fund = (user: { api: User['api'] }, id: string, milestoneId: string) =>
  user.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path: { id, milestoneId } } });
const release = (user: { api: User['api'] }, id: string, milestoneId: string) =>
  user.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', { params: { path: { id, milestoneId } } });
const getContract = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;
const milestoneRow = async (id: string) => (await server.db.select().from(milestonesTable).where(eq(milestonesTable.id, id)))[0]!;
const eventTypes = async (type: 'milestone' | 'contract', id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);
const intentsFor = (milestoneId: string) =>
  [...fake.paymentIntents.values()].filter((pi) => (pi.metadata as Record<string, string>).milestone_id === milestoneId);
const transfersFor = (milestoneId: string) =>
  [...fake.transfers.values()].filter((t) => (t.metadata as Record<string, string>).milestone_id === milestoneId);

/** An active contract with a new worker (a worker who already passed KYC skips pending_freelancer_kyc). */
async function active(milestones: Milestone[] = [{ title: 'Parser', amount_cents: 5_000 }]) {
  const worker = await server.user('Worker');
  const { contract, accountId } = await activeStripeContract(server, fake, client, worker, milestones);
  return { contract, accountId, worker, ids: contract.milestones.map((m) => m.id) };
}

/** A contract whose milestones are all funded (paid at the fake, confirmed by webhook). */
async function funded(milestones: Milestone[]) {
  const result = await active(milestones);
  for (const id of result.ids) {
    const res = await fund(client, result.contract.id, id);
    expect(res.response.status).toBe(200);
    if (res.data!.payment_id) expect((await payAtStripe(server, fake, res.data!.payment_id)).delivered.status).toBe(200);
    expect((await milestoneRow(id)).status).toBe('funded');
  }
  return result;
}

/** The payout job pg-boss holds for a milestone. */
async function payoutJobs(milestoneId: string) {
  const result: any = await server.db.execute(
    sql`select start_after, singleton_key, retry_limit, retry_delay, retry_backoff from pgboss.job where name = 'milestone-payout' and data->>'milestone_id' = ${milestoneId}`,
  );
  return (result.rows ?? result) as {
    start_after: Date | string;
    singleton_key: string;
    retry_limit: number;
    retry_delay: number;
    retry_backoff: boolean;
  }[];
}

describe('POST /api/contracts/{id}/milestones/{milestoneId}/fund', () => {
  it('creates one PaymentIntent for the milestone and returns its client_secret', async () => {
    const {
      contract,
      worker,
      ids: [id],
    } = await active([{ title: 'Parser', amount_cents: 5_000, due_date: '2026-12-15' }]);
    const before = fake.counts().paymentIntents;
    const res = await fund(client, contract.id, id!);
    expect(res.response.status).toBe(200);
    const intent = intentsFor(id!)[0]!;
    expect(res.data).toEqual({
      milestone: expect.objectContaining({
        id,
        contract_id: contract.id,
        status: 'funding',
        amount_cents: 5_000,
        currency: 'USD',
        funded_at: null,
      }),
      client_secret: intent.client_secret,
      payment_id: intent.id,
      provider: 'stripe',
      payment_page_url: null,
    });
    expect(fake.counts().paymentIntents).toBe(before + 1);
    expect(intent).toMatchObject({
      amount: 5_000,
      currency: 'usd',
      metadata: { contract_id: contract.id, milestone_id: id },
      transfer_group: `gm-milestone-${id}`,
    });
    expect(
      fake.requests.find(
        (r) => r.path === '/v1/payment_intents' && r.params.metadata && (r.params.metadata as Record<string, string>).milestone_id === id,
      )?.idempotencyKey,
    ).toBe(`gm-fund-${id}`);
    expect(await milestoneRow(id!)).toMatchObject({ status: 'funding', paymentId: intent.id, clientSecret: intent.client_secret });
    const events = await eventsForResource(server.db, 'milestone', id!);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding']);
    expect(events[0]).toMatchObject({
      actorUserId: client.userId,
      audienceUserIds: [client.userId, worker.userId],
      data: res.data!.milestone,
    });
  });

  it('returns the same payment on a repeat and on concurrent repeats: one PaymentIntent, one event', async () => {
    const {
      contract,
      ids: [id],
    } = await active();
    const before = fake.counts().paymentIntents;
    const concurrent = await Promise.all([1, 2, 3, 4].map(() => fund(client, contract.id, id!)));
    const again = await fund(client, contract.id, id!);
    for (const res of [...concurrent, again]) {
      expect(res.response.status).toBe(200);
      expect(res.data!.milestone.status).toBe('funding');
    }
    const first = concurrent[0]!.data!;
    for (const res of [...concurrent, again])
      expect([res.data!.payment_id, res.data!.client_secret]).toEqual([first.payment_id, first.client_secret]);
    expect(fake.counts().paymentIntents).toBe(before + 1);
    expect(intentsFor(id!)).toHaveLength(1);
    expect(await eventTypes('milestone', id!)).toEqual(['milestone.funding']);
  });

  it('waits out a concurrent request still in flight at Stripe instead of failing it', async () => {
    const {
      contract,
      ids: [id],
    } = await active();
    const before = fake.counts().paymentIntents;
    // The first request is held at Stripe until another has met its idempotency key in flight (409).
    const held = gate();
    fake.holdNext(held.until, 'POST /v1/payment_intents');
    const funding = Promise.all([1, 2, 3, 4].map(() => fund(client, contract.id, id!)));
    await expect.poll(() => fake.requests.some((r) => r.idempotencyKey === `gm-fund-${id}` && r.status === 409)).toBe(true);
    held.open();
    const concurrent = await funding;
    expect(concurrent.map((r) => r.response.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(concurrent.map((r) => r.data!.client_secret)).size).toBe(1);
    expect(fake.counts().paymentIntents).toBe(before + 1);
    expect(await eventTypes('milestone', id!)).toEqual(['milestone.funding']);
  });

  it('funds a zero amount at once: no payment, client_secret null, milestone.funded', async () => {
    const {
      contract,
      ids: [free, paid],
    } = await active([
      { title: 'Kick-off', amount_cents: 0 },
      { title: 'Work', amount_cents: 7_000 },
    ]);
    const requestsBefore = fake.requests.length;
    const res = await fund(client, contract.id, free!);
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      milestone: expect.objectContaining({ id: free, status: 'funded', amount_cents: 0, funded_at: expect.any(String) }),
      client_secret: null,
      payment_id: null,
      provider: 'stripe',
      payment_page_url: null,
    });
    expect(fake.requests.length).toBe(requestsBefore); // Stripe was not called at all
    const again = await fund(client, contract.id, free!);
    expect(again.data).toEqual(res.data);
    expect(await eventTypes('milestone', free!)).toEqual(['milestone.funded']);
    expect(await milestoneRow(free!)).toMatchObject({ status: 'funded', paymentId: null, clientSecret: null });
    expect((await milestoneRow(paid!)).status).toBe('pending');
  });

  it('needs credentials, hides the contract from non-parties, and lets only the client fund', async () => {
    const {
      contract,
      worker,
      ids: [id],
    } = await active();
    expectError(await fund({ api: server.anonymous }, contract.id, id!), 401, 'UNAUTHENTICATED');
    expectError(await fund(stranger, contract.id, id!), 404, 'NOT_FOUND');
    expectError(await fund(worker, contract.id, id!), 403, 'FORBIDDEN', /only the client/);
    expectError(await fund(client, contract.id, newId()), 404, 'NOT_FOUND', /milestone/);
    expectError(await fund(client, newId(), id!), 404, 'NOT_FOUND', /contract/);
    const bad = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
      params: { path: { id: contract.id, milestoneId: 'not-a-uuid' } },
    });
    expectError(bad, 400, 'VALIDATION_FAILED');
    // A milestone of another contract, through this contract's path.
    const other = await active();
    expectError(await fund(client, contract.id, other.ids[0]!), 404, 'NOT_FOUND', /milestone/);
    expect(intentsFor(id!)).toEqual([]);
    expect(intentsFor(other.ids[0]!)).toEqual([]);
    expect((await milestoneRow(id!)).status).toBe('pending');
    expect((await milestoneRow(other.ids[0]!)).status).toBe('pending');
    expect(await eventTypes('milestone', id!)).toEqual([]);
  });

  it('is 409 until the contract is active', async () => {
    const worker = await server.user('Worker');
    const pending = await pendingContract(client, worker);
    const [m] = pending.contract.milestones;
    expectError(await fund(client, pending.contract.id, m!.id), 409, 'INVALID_STATE', /pending_owner_approval/);
    const kyc = await approvedContract(client, worker);
    expectError(await fund(client, kyc.contract.id, kyc.contract.milestones[0]!.id), 409, 'INVALID_STATE', /pending_freelancer_kyc/);
    expect((await milestoneRow(m!.id)).status).toBe('pending');
  });

  it.each([
    ['a Stripe 500', () => fake.failNext(500, undefined, 'POST /v1/payment_intents'), 'provider_error'],
    ['a card decline (402)', () => fake.failNext(402, undefined, 'POST /v1/payment_intents'), 'declined'],
    ['a time-out', () => fake.delayNext(TIMEOUT_MS + 1_500, 'POST /v1/payment_intents'), 'did not answer in time'],
  ])('answers %s with 502 PAYMENT_PROVIDER_ERROR and changes nothing; a retry then works', async (_name, arrange, text) => {
    const {
      contract,
      ids: [id],
    } = await active();
    arrange();
    const res = await fund(client, contract.id, id!);
    expectError(
      res,
      502,
      'PAYMENT_PROVIDER_ERROR',
      new RegExp(text === 'did not answer in time' ? text : 'stripe could not create the payment'),
    );
    expect(await milestoneRow(id!)).toMatchObject({ status: 'pending', paymentId: null, clientSecret: null });
    expect(await eventTypes('milestone', id!)).toEqual([]);
    // Stripe may have finished the request we gave up on; a retry replays it rather than paying twice.
    if (text === 'did not answer in time') await vi.waitFor(() => expect(intentsFor(id!)).toHaveLength(1), { timeout: 60_000 });
    const retry = await fund(client, contract.id, id!);
    expect(retry.response.status).toBe(200);
    expect(intentsFor(id!)).toHaveLength(1);
    expect(retry.data!.payment_id).toBe(intentsFor(id!)[0]!.id);
    expect(await eventTypes('milestone', id!)).toEqual(['milestone.funding']);
  });
});

describe('POST /api/contracts/{id}/milestones/{milestoneId}/release and the payout', () => {
  const stripeProvider = () => createStripeProvider(server.config.payments.stripe!);

  it('releases a funded milestone; the payout job pays it payout_delay_days later, once', async () => {
    const {
      contract,
      accountId,
      ids: [first, second],
    } = await funded([
      { title: 'One', amount_cents: 5_000 },
      { title: 'Two', amount_cents: 3_000 },
    ]);
    const res = await release(client, contract.id, first!);
    expect(res.response.status).toBe(200);
    const { milestone, contract: after } = res.data!;
    expect(milestone).toMatchObject({ id: first, status: 'released', released_at: expect.any(String), paid_at: null });
    // payout_delay_days (3) days of PAYOUT_DAY_SECONDS each, after the release.
    expect(Date.parse(milestone.payout_due_at!) - Date.parse(milestone.released_at!)).toBe(contract.payout_delay_days * DAY_SECONDS * 1000);
    expect(after.status).toBe('active'); // the second milestone is not released yet
    expect(after.milestones.find((m) => m.id === first)).toEqual(milestone);
    // The payout waits in pg-boss until payout_due_at: the milestone is released, not paid, meanwhile.
    const jobs = await payoutJobs(first!);
    expect(jobs).toHaveLength(1);
    expect(new Date(jobs[0]!.start_after).toISOString()).toBe(milestone.payout_due_at);
    expect(jobs[0]).toMatchObject({ singleton_key: first, retry_limit: 10, retry_delay: 1, retry_backoff: true });
    expect((await milestoneRow(first!)).status).toBe('released');
    expect(transfersFor(first!)).toEqual([]);
    expect(await eventTypes('milestone', first!)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.released']);

    await vi.waitFor(async () => expect((await milestoneRow(first!)).status).toBe('paid'), { timeout: 60_000, interval: 250 });
    const [transfer, ...more] = transfersFor(first!);
    expect(more).toEqual([]);
    const intent = fake.paymentIntents.get((await milestoneRow(first!)).paymentId!)!;
    expect(transfer).toMatchObject({
      amount: 5_000,
      currency: 'usd',
      destination: accountId,
      source_transaction: intent.latest_charge,
      transfer_group: `gm-milestone-${first}`,
    });
    expect(fake.requests.filter((r) => r.path === '/v1/transfers' && r.idempotencyKey === `gm-payout-${first}`).length).toBeGreaterThan(0);
    const row = await milestoneRow(first!);
    expect(row.transferId).toBe(transfer!.id);
    expect(row.paidAt!.getTime()).toBeGreaterThanOrEqual(row.payoutDueAt!.getTime());
    const events = await eventsForResource(server.db, 'milestone', first!);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.released', 'milestone.paid']);
    expect(events.at(-1)).toMatchObject({
      actorUserId: null,
      data: expect.objectContaining({ status: 'paid', paid_at: row.paidAt!.toISOString() }),
    });

    // pg-boss delivers at least once: running the payout again pays nothing more.
    await payout({ db: server.db, payments: stripeProvider() }, first!);
    expect(transfersFor(first!)).toHaveLength(1);
    expect(await eventTypes('milestone', first!)).toHaveLength(4);
    expect((await milestoneRow(second!)).status).toBe('funded');
    expect((await getContract(contract.id)).status).toBe('active');
  });

  it('completes the contract when every milestone is released, with contract.completed', async () => {
    const {
      contract,
      ids: [free, paid],
    } = await funded([
      { title: 'Kick-off', amount_cents: 0 },
      { title: 'Work', amount_cents: 4_000 },
    ]);
    const one = await release(client, contract.id, free!);
    expect(one.data!.contract.status).toBe('active');
    const two = await release(client, contract.id, paid!);
    expect(two.response.status).toBe(200);
    expect(two.data!.contract).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    const contractEvents = await eventTypes('contract', contract.id);
    expect(contractEvents.at(-1)).toBe('contract.completed');
    expect(contractEvents.filter((t) => t === 'contract.completed')).toHaveLength(1);
    // Nothing moves on a completed contract.
    expectError(await release(client, contract.id, paid!), 409, 'INVALID_STATE', /completed/);
    expectError(await fund(client, contract.id, paid!), 409, 'INVALID_STATE', /completed/);

    await vi.waitFor(
      async () => {
        expect((await milestoneRow(free!)).status).toBe('paid');
        expect((await milestoneRow(paid!)).status).toBe('paid');
      },
      { timeout: 60_000, interval: 250 },
    );
    expect((await milestoneRow(free!)).transferId).toBeNull(); // nothing to transfer for a zero amount
    expect(transfersFor(free!)).toEqual([]);
    expect(transfersFor(paid!)).toHaveLength(1);
    const final = await getContract(contract.id);
    expect(final.status).toBe('completed');
    expect(final.milestones.map((m) => m.status)).toEqual(['paid', 'paid']);
  });

  it('completes the contract once when the last milestones are released concurrently', async () => {
    const { contract, ids } = await funded([
      { title: 'One', amount_cents: 0 },
      { title: 'Two', amount_cents: 0 },
      { title: 'Three', amount_cents: 0 },
    ]);
    const results = await Promise.all([...ids, ...ids].map((id) => release(client, contract.id, id)));
    // Each milestone is released by exactly one of its two requests; the other finds it released.
    expect(results.filter((r) => r.response.status === 200)).toHaveLength(3);
    for (const r of results.filter((r) => r.response.status !== 200)) expectError(r, 409, 'INVALID_STATE', /released|completed/);
    expect((await getContract(contract.id)).status).toBe('completed');
    expect((await eventTypes('contract', contract.id)).filter((t) => t === 'contract.completed')).toHaveLength(1);
    for (const id of ids) expect((await eventTypes('milestone', id)).filter((t) => t === 'milestone.released')).toHaveLength(1);
    expect(results.filter((r) => r.data?.contract.status === 'completed')).toHaveLength(1);
  });

  it('lets only the client release, and only a funded milestone', async () => {
    const {
      contract,
      worker,
      ids: [first, second],
    } = await active([
      { title: 'One', amount_cents: 5_000 },
      { title: 'Two', amount_cents: 6_000 },
    ]);
    expectError(await release(client, contract.id, first!), 409, 'INVALID_STATE', /pending/);
    const funding = await fund(client, contract.id, first!);
    expectError(await release(client, contract.id, first!), 409, 'INVALID_STATE', /funding/);
    await payAtStripe(server, fake, funding.data!.payment_id!);
    expectError(await release({ api: server.anonymous }, contract.id, first!), 401, 'UNAUTHENTICATED');
    expectError(await release(stranger, contract.id, first!), 404, 'NOT_FOUND');
    expectError(await release(worker, contract.id, first!), 403, 'FORBIDDEN', /only the client/);
    expectError(await release(client, contract.id, newId()), 404, 'NOT_FOUND', /milestone/);
    expectError(await release(client, newId(), first!), 404, 'NOT_FOUND', /contract/);
    expectError(
      await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
        params: { path: { id: 'nope', milestoneId: first! } },
      }),
      400,
      'VALIDATION_FAILED',
    );
    expect((await milestoneRow(first!)).status).toBe('funded');
    expect(await eventTypes('milestone', first!)).toEqual(['milestone.funding', 'milestone.funded']);

    expect((await release(client, contract.id, first!)).response.status).toBe(200);
    expectError(await release(client, contract.id, first!), 409, 'INVALID_STATE', /released/);
    expect(await eventTypes('milestone', first!)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.released']);
    expect((await milestoneRow(second!)).status).toBe('pending');
    expect(await payoutJobs(first!)).toHaveLength(1);
  });

  it('is 409 before the contract is active', async () => {
    const pending = await pendingContract(client, await server.user('Worker'));
    expectError(
      await release(client, pending.contract.id, pending.contract.milestones[0]!.id),
      409,
      'INVALID_STATE',
      /pending_owner_approval/,
    );
  });

  it('a payout whose last retry fails: milestone.payout_failed, still released, parked for a redrive that pays it once', async () => {
    const {
      contract,
      ids: [id],
    } = await funded([{ title: 'One', amount_cents: 3_000 }]);
    await vi.waitFor(
      async () => expect(await server.db.select().from(milestonesTable).where(eq(milestonesTable.status, 'released'))).toEqual([]),
      { timeout: 60_000, interval: 250 },
    );
    expect((await release(client, contract.id, id!)).response.status).toBe(200);
    // Stand in for ten failed retries: the release's job (due in payout_delay_days) is replaced by
    // one with a single retry left, and both of its attempts fail.
    const boss = server.runtime.jobs.boss;
    const [scheduled] = await boss.findJobs(PAYOUT_QUEUE, { key: id! });
    await boss.cancel(PAYOUT_QUEUE, scheduled!.id);
    for (let i = 0; i < 2; i++) fake.failNext(500, undefined, 'POST /v1/transfers');
    await boss.send(PAYOUT_QUEUE, { milestone_id: id }, { retryLimit: 1, retryDelay: 1 });

    await vi.waitFor(async () => expect(await eventTypes('milestone', id!)).toContain('milestone.payout_failed'), {
      timeout: 30_000,
      interval: 250,
    });
    expect((await milestoneRow(id!)).status).toBe('released');
    const failed = (await eventsForResource(server.db, 'milestone', id!)).filter((e) => e.type === 'milestone.payout_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      actorUserId: null,
      data: { id, status: 'released', failure_reason: expect.stringContaining('every retry') },
    });
    expect(failed[0]!.audienceUserIds.sort()).toEqual([contract.client_user_id, contract.worker_user_id].sort());
    expect(transfersFor(id!)).toHaveLength(0);
    await vi.waitFor(async () => expect(await boss.findJobs(PAYOUT_FAILED_QUEUE, { data: { milestone_id: id } })).toHaveLength(1), {
      timeout: 60_000,
      interval: 250,
    });

    // The cause fixed, the operator redrives the dead letter queue: paid once.
    expect(await boss.redrive(PAYOUT_FAILED_QUEUE, { data: { milestone_id: id } })).toBe(1);
    await vi.waitFor(async () => expect((await milestoneRow(id!)).status).toBe('paid'), { timeout: 30_000, interval: 250 });
    expect(transfersFor(id!)).toHaveLength(1);
    expect((await eventTypes('milestone', id!)).filter((t) => t === 'milestone.paid')).toHaveLength(1);
  });

  it('retries a payout whose transfer failed, with backoff, and pays once', async () => {
    const {
      contract,
      ids: [id],
    } = await funded([{ title: 'One', amount_cents: 2_500 }]);
    // The failure must meet this payout, not another test's that is still waiting for its day.
    await vi.waitFor(
      async () => expect(await server.db.select().from(milestonesTable).where(eq(milestonesTable.status, 'released'))).toEqual([]),
      { timeout: 60_000, interval: 250 },
    );
    // Three failures in a row: more than pg-boss's default of two retries would survive.
    for (let i = 0; i < 3; i++) fake.failNext(500, undefined, 'POST /v1/transfers');
    expect((await release(client, contract.id, id!)).response.status).toBe(200);
    await vi.waitFor(async () => expect((await milestoneRow(id!)).status).toBe('paid'), { timeout: 45_000, interval: 250 });
    expect(fake.requests.filter((r) => r.idempotencyKey === `gm-payout-${id}`).map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(transfersFor(id!)).toHaveLength(1);
    expect((await eventTypes('milestone', id!)).filter((t) => t === 'milestone.paid')).toHaveLength(1);
  });
});
