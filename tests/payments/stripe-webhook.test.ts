// POST /api/stripe/webhook: Stripe's events, signed as Stripe signs them, move contracts and
// milestones; each event applies once; a bad signature changes nothing (docs/architecture.md §7).
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import type { TestServer, TestUser as User } from '../helpers/server.ts';
import {
  CONNECT_WEBHOOK_SECRET,
  WEBHOOK_SECRET,
  accountIdOf,
  activeStripeContract,
  deliver,
  onboardAtStripe,
  postWebhook,
  startStripeServer,
} from '../helpers/stripe-mode.ts';
import { approvedContract } from '../helpers/lifecycle.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { contracts as contractsTable, milestones as milestonesTable, paymentAccounts, providerEvents } from '../../db/schema.ts';
import { reconcileKyc, KYC_WEBHOOK_GRACE_MS } from '../../src/services/kyc-reconcile.ts';
import { KYC_RECONCILE_QUEUE } from '../../src/job-system/queues.ts';
import { createPaymentProvider } from '../../src/payments/index.ts';
import pino from 'pino';

let fake: FakeStripe;
let server: TestServer;
let client: User;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startStripeServer(fake);
  client = await server.user('Client');
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const eventTypes = async (type: 'milestone' | 'contract', id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);
const milestoneRow = async (id: string) => (await server.db.select().from(milestonesTable).where(eq(milestonesTable.id, id)))[0]!;
const seen = async (eventId: string) => (await server.db.select().from(providerEvents).where(eq(providerEvents.eventId, eventId))).length;
const contractStatus = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!.status;
/** A valid Stripe-Signature for any payload, JSON or not. */
const sign = (payload: string) => Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
const ack = (outcome: 'applied' | 'duplicate' | 'ignored') => ({ status: 200, body: { received: true, outcome } });

/** A contract waiting for the worker's KYC, with a new worker. */
/**
 * The worker's account is verified, and the contract went from both approvals to active by that
 * alone (no actor): its events, in order.
 */
async function activatedByVerification(contractId: string, accountId: string) {
  const [account] = await server.db.select().from(paymentAccounts).where(eq(paymentAccounts.accountId, accountId));
  expect(account!.verifiedAt).toBeInstanceOf(Date);
  const events = await eventsForResource(server.db, 'contract', contractId);
  expect(events.map((e) => e.type)).toEqual([
    'contract.created',
    'contract.approved',
    'contract.approved',
    'contract.pending_freelancer_kyc',
    'contract.active',
  ]);
  expect(events.at(-1)).toMatchObject({ actorUserId: null, data: expect.objectContaining({ status: 'active' }) });
  return events;
}

async function waitingForKyc() {
  const worker = await server.user('Worker');
  return { worker, ...(await approvedContract(client, worker)) };
}

/** A milestone in `funding`: its PaymentIntent exists at the fake. */
async function fundingMilestone(amount = 5_000) {
  const worker = await server.user('Worker');
  const { contract } = await activeStripeContract(server, fake, client, worker, [{ title: 'Work', amount_cents: amount }]);
  const milestone = contract.milestones[0]!;
  const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
    params: { path: { id: contract.id, milestoneId: milestone.id } },
  });
  expect(res.data!.milestone.status).toBe('funding');
  return { contract, milestone, paymentId: res.data!.payment_id! };
}

describe('account.updated', () => {
  it("activates the verified worker's contracts waiting for KYC, once however often it is delivered", async () => {
    const { contract, connectUrl } = await waitingForKyc();
    const { accountId, event, delivered } = await onboardAtStripe(server, fake, connectUrl);
    expect(delivered).toEqual(ack('applied'));
    expect(await contractStatus(contract.id)).toBe('active');
    const events = await activatedByVerification(contract.id, accountId);
    expect(events.at(-1)).toMatchObject({ data: expect.objectContaining({ activated_at: expect.any(String) }) });

    expect(await deliver(server, fake, event, CONNECT_WEBHOOK_SECRET)).toEqual(ack('duplicate'));
    expect((await eventTypes('contract', contract.id)).filter((t) => t === 'contract.active')).toHaveLength(1);
  });

  it('ignores an account that is not verified yet, and one that is not ours', async () => {
    const { contract, connectUrl } = await waitingForKyc();
    const accountId = accountIdOf(connectUrl);
    const unverified = fake.buildEvent('account.updated', fake.accounts.get(accountId)!, { account: accountId });
    expect(await deliver(server, fake, unverified, CONNECT_WEBHOOK_SECRET)).toEqual(ack('ignored'));
    expect(await contractStatus(contract.id)).toBe('pending_freelancer_kyc');

    const stranger = fake.buildEvent('account.updated', {
      ...fake.accounts.get(accountId)!,
      id: 'acct_not_ours',
      details_submitted: true,
      payouts_enabled: true,
      capabilities: { transfers: 'active' },
    });
    expect(await deliver(server, fake, stranger, CONNECT_WEBHOOK_SECRET)).toEqual(ack('ignored'));
    expect(await contractStatus(contract.id)).toBe('pending_freelancer_kyc');
    expect(await eventTypes('contract', contract.id)).not.toContain('contract.active');
  });
});

describe('payment_intent events', () => {
  it('funds the milestone on payment_intent.succeeded, once however often it is delivered', async () => {
    const { contract, milestone, paymentId } = await fundingMilestone();
    const intent = fake.succeedPaymentIntent(paymentId);
    const event = fake.buildEvent('payment_intent.succeeded', intent);
    expect(await deliver(server, fake, event)).toEqual(ack('applied'));
    const row = await milestoneRow(milestone.id);
    expect(row).toMatchObject({ status: 'funded', paymentId });
    expect(row.fundedAt).toBeInstanceOf(Date);
    const events = await eventsForResource(server.db, 'milestone', milestone.id);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding', 'milestone.funded']);
    expect(events[1]).toMatchObject({
      actorUserId: null,
      audienceUserIds: [contract.client_user_id, contract.worker_user_id],
      data: expect.objectContaining({ status: 'funded' }),
    });

    expect(await deliver(server, fake, event)).toEqual(ack('duplicate'));
    // Stripe may also send a second, different event for the same payment: no second funding either.
    expect(await deliver(server, fake, fake.buildEvent('payment_intent.succeeded', intent))).toEqual(ack('applied'));
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding', 'milestone.funded']);
  });

  it('applies an event delivered several times at once exactly once', async () => {
    const { milestone, paymentId } = await fundingMilestone();
    const { body, signature } = fake.signedWebhook(
      fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(paymentId)),
      WEBHOOK_SECRET,
    );
    const results = await Promise.all([1, 2, 3].map(() => postWebhook(server, body, { 'stripe-signature': signature })));
    expect(results.map((r) => r.body.outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding', 'milestone.funded']);
  });

  it('records payment_intent.payment_failed and keeps the milestone funding for another attempt', async () => {
    const { milestone, paymentId } = await fundingMilestone();
    const failed = fake.failPaymentIntent(paymentId, { message: 'Your card has insufficient funds.', decline_code: 'insufficient_funds' });
    const event = fake.buildEvent('payment_intent.payment_failed', failed);
    expect(await deliver(server, fake, event)).toEqual(ack('applied'));
    expect((await milestoneRow(milestone.id)).status).toBe('funding');
    const events = await eventsForResource(server.db, 'milestone', milestone.id);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding', 'milestone.payment_failed']);
    expect(events[1]!.data).toMatchObject({ status: 'funding', failure_reason: 'Your card has insufficient funds.' });
    expect(await deliver(server, fake, event)).toEqual(ack('duplicate'));

    // The client tries again with the same client_secret, and it succeeds.
    expect(await deliver(server, fake, fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(paymentId)))).toEqual(
      ack('applied'),
    );
    expect((await milestoneRow(milestone.id)).status).toBe('funded');
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding', 'milestone.payment_failed', 'milestone.funded']);
  });

  it('does not fund a milestone from a payment of another amount or currency', async () => {
    const { milestone, paymentId } = await fundingMilestone(5_000);
    const intent = fake.succeedPaymentIntent(paymentId);
    for (const changed of [{ amount: 50, amount_received: 50 }, { currency: 'eur' }]) {
      const event = fake.buildEvent('payment_intent.succeeded', { ...intent, ...changed });
      expect(await deliver(server, fake, event)).toEqual(ack('applied'));
      expect((await milestoneRow(milestone.id)).status).toBe('funding');
    }
    const events = await eventsForResource(server.db, 'milestone', milestone.id);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding', 'milestone.payment_mismatch', 'milestone.payment_mismatch']);
    expect(events[1]!.data).toMatchObject({ status: 'funding', received_amount_cents: 50, received_currency: 'USD' });
    expect(events[2]!.data).toMatchObject({ received_amount_cents: 5_000, received_currency: 'EUR' });
  });

  it('ignores a payment that is not ours', async () => {
    const other = fake.buildEvent('payment_intent.succeeded', {
      id: 'pi_not_ours',
      object: 'payment_intent',
      amount: 100,
      amount_received: 100,
      currency: 'usd',
      metadata: {},
    });
    expect(await deliver(server, fake, other)).toEqual(ack('ignored'));
  });
});

// PGlite has one connection, so its transactions never interleave: the lock order matters on a server.
describe.runIf(process.env.DATABASE_URL)('lock order on a server Postgres', () => {
  /** Backends of this database waiting for a row lock (not pg-boss's advisory locks). */
  async function rowLockWaiters(): Promise<number> {
    const result: any = await server.db.execute(sql`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and wait_event in ('transactionid', 'tuple')`);
    return (result.rows ?? result)[0].n;
  }

  it('payment_intent.succeeded and a release of the same milestone meet without a deadlock', async () => {
    const { contract, milestone, paymentId } = await fundingMilestone();
    const event = fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(paymentId));
    let delivered: ReturnType<typeof deliver> | undefined;
    let released: Promise<any> | undefined;
    // Hold the milestone row, so that the webhook queues up first and the release after it: the
    // interleaving in which locking the milestone before its contract (release locks the contract
    // first) deadlocks.
    await server.db.transaction(async (tx) => {
      await tx.execute(sql`select id from milestones where id = ${milestone.id} for update`);
      delivered = deliver(server, fake, event);
      await vi.waitFor(async () => expect(await rowLockWaiters()).toBe(1), { timeout: 60_000, interval: 50 });
      released = client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
        params: { path: { id: contract.id, milestoneId: milestone.id } },
      });
      await vi.waitFor(async () => expect(await rowLockWaiters()).toBe(2), { timeout: 60_000, interval: 50 });
    });
    expect(await delivered).toEqual(ack('applied'));
    const release = await released!;
    expect(release.response.status).toBe(200);
    expect(release.data.milestone.status).toBe('released');
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.released']);
  });
});

describe('what the webhook refuses', () => {
  it('rejects a missing, wrong, tampered, malformed or stale signature with 400, and changes nothing', async () => {
    const { milestone, paymentId } = await fundingMilestone();
    const event = fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(paymentId));
    const { body, signature } = fake.signedWebhook(event, WEBHOOK_SECRET);
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const attempts: [string, string, Record<string, string>, RegExp][] = [
      ['missing', body, {}, /missing/],
      ['another secret', body, { 'stripe-signature': fake.signedWebhook(event, 'whsec_someone_else').signature }, /does not match/],
      ['tampered body', body.replace('"amount":5000', '"amount":5001'), { 'stripe-signature': signature }, /does not match/],
      ['malformed header', body, { 'stripe-signature': 'v1=deadbeef' }, /malformed|does not match/],
      ['stale', body, { 'stripe-signature': fake.signedWebhook(event, WEBHOOK_SECRET, tenMinutesAgo).signature }, /too old/],
    ];
    for (const [name, sent, headers, message] of attempts) {
      const res = await postWebhook(server, sent, headers);
      expect(res.status, name).toBe(400);
      expect(res.body.error.code, name).toBe('VALIDATION_FAILED');
      expect(res.body.error.message, name).toMatch(message);
    }
    expect((await milestoneRow(milestone.id)).status).toBe('funding');
    expect(await seen(event.id as string)).toBe(0);
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding']);
    // The genuine delivery is still applied: the refused ones left no trace.
    expect(await postWebhook(server, body, { 'stripe-signature': signature })).toEqual(ack('applied'));
    expect((await milestoneRow(milestone.id)).status).toBe('funded');
  });

  it('verifies the exact bytes received, whitespace and non-ASCII text included', async () => {
    const { milestone, paymentId } = await fundingMilestone();
    const intent = { ...fake.succeedPaymentIntent(paymentId), description: 'Café – naïve ✓ 日本' };
    const event = fake.buildEvent('payment_intent.succeeded', intent);
    const body = JSON.stringify(event, null, 2); // not what JSON.stringify(JSON.parse(body)) gives back
    const { signature } = fake.signedWebhook(JSON.parse(body), WEBHOOK_SECRET);
    expect((await postWebhook(server, body, { 'stripe-signature': signature })).status).toBe(400); // signed compact, sent pretty
    expect(await postWebhook(server, body, { 'stripe-signature': sign(body) })).toEqual(ack('applied'));
    expect((await milestoneRow(milestone.id)).status).toBe('funded');
  });

  it('acknowledges an event type it does not act on', async () => {
    const event = fake.buildEvent('customer.created', { id: 'cus_1', object: 'customer' });
    expect(await deliver(server, fake, event)).toEqual(ack('ignored'));
  });

  it('rejects malformed JSON, a body that is not an event, and another content type', async () => {
    const broken = '{"id": "evt_1", "type": ';
    const malformed = await postWebhook(server, broken, { 'stripe-signature': sign(broken) });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_FAILED');
    const notEvent = JSON.stringify({ hello: 'world' });
    const missingFields = await postWebhook(server, notEvent, { 'stripe-signature': sign(notEvent) });
    expect(missingFields.status).toBe(400);
    const text = await fetch(`${server.url}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'stripe-signature': sign('hi') },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('KYC reconciliation, when account.updated is late or lost', () => {
  const deps = () => ({
    db: server.db,
    payments: createPaymentProvider(server.config, { publicUrl: server.url, secret: 'unused' }),
    log: pino({ level: 'silent' }),
  });
  /** The contract has waited longer than the grace the webhook gets. */
  const backdate = (id: string) =>
    server.db
      .update(contractsTable)
      .set({ updatedAt: new Date(Date.now() - KYC_WEBHOOK_GRACE_MS - 60_000) })
      .where(eq(contractsTable.id, id));
  const asked = (accountId: string) => fake.requests.filter((r) => r.method === 'GET' && r.path === `/v1/accounts/${accountId}`).length;

  it('activates, by asking Stripe, a contract whose webhook never came; once, through the scheduled job', async () => {
    const { contract, connectUrl } = await waitingForKyc();
    const accountId = accountIdOf(connectUrl);
    expect((await fetch(connectUrl, { redirect: 'manual' })).status).toBe(302); // onboarding done at Stripe; no webhook sent

    // Within the grace period the webhook is awaited: Stripe is not asked.
    await reconcileKyc(deps());
    expect(asked(accountId)).toBe(0);
    expect(await contractStatus(contract.id)).toBe('pending_freelancer_kyc');

    await backdate(contract.id);
    await server.runtime.jobs.boss.send(KYC_RECONCILE_QUEUE, {});
    await vi.waitFor(async () => expect(await contractStatus(contract.id)).toBe('active'), { timeout: 60_000, interval: 100 });
    expect(asked(accountId)).toBe(1);
    await activatedByVerification(contract.id, accountId);

    // Nothing waits any more: Stripe is not asked again, nothing is written again.
    await reconcileKyc(deps());
    expect(asked(accountId)).toBe(1);
    expect((await eventTypes('contract', contract.id)).filter((t) => t === 'contract.active')).toHaveLength(1);
    // And the webhook, arriving at last, finds it done.
    const late = fake.buildEvent('account.updated', fake.accounts.get(accountId)!, { account: accountId });
    expect(await deliver(server, fake, late, CONNECT_WEBHOOK_SECRET)).toEqual(ack('applied'));
    expect((await eventTypes('contract', contract.id)).filter((t) => t === 'contract.active')).toHaveLength(1);
  });

  it('activates without asking Stripe a contract that missed a verification already recorded here', async () => {
    const { contract, connectUrl } = await waitingForKyc();
    const accountId = accountIdOf(connectUrl);
    // As if the account's verification had committed for another contract just before this one waited.
    await server.db.update(paymentAccounts).set({ verifiedAt: new Date() }).where(eq(paymentAccounts.accountId, accountId));
    await backdate(contract.id);
    await reconcileKyc(deps());
    expect(await contractStatus(contract.id)).toBe('active');
    expect(asked(accountId)).toBe(0);
  });

  it('leaves the contract waiting while Stripe says not verified, or fails to answer', async () => {
    const { contract, connectUrl } = await waitingForKyc();
    const accountId = accountIdOf(connectUrl);
    await backdate(contract.id);
    await reconcileKyc(deps());
    expect(asked(accountId)).toBe(1);
    expect(await contractStatus(contract.id)).toBe('pending_freelancer_kyc');

    // Verified at Stripe, but Stripe fails when asked: counted as failed, nothing written, asked again next time.
    expect((await fetch(connectUrl, { redirect: 'manual' })).status).toBe(302);
    fake.failNext(500, undefined, `GET /v1/accounts/${accountId}`);
    const failed = await reconcileKyc(deps());
    expect(failed.failed).toBeGreaterThanOrEqual(1);
    expect(await contractStatus(contract.id)).toBe('pending_freelancer_kyc');
    expect((await server.db.select().from(paymentAccounts).where(eq(paymentAccounts.accountId, accountId)))[0]!.verifiedAt).toBeNull();
    await reconcileKyc(deps());
    expect(await contractStatus(contract.id)).toBe('active');
  });
});
