// The Stripe provider over the real stripe-node SDK, against a local fake of Stripe's HTTP API.
// No app server: the provider is our code, the fake is the outside service.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { v7 as uuid } from 'uuid';
import { loadConfig, type StripeSettings } from '../../src/config.ts';
import { createPaymentProvider, PaymentProviderError, WebhookSignatureError, type PaymentProvider } from '../../src/payments/index.ts';
import { createStripeProvider } from '../../src/payments/stripe.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { gate } from '../helpers/gate.ts';

const WEBHOOK_SECRET = 'whsec_test_platform_endpoint';
const CONNECT_WEBHOOK_SECRET = 'whsec_test_connect_endpoint';

let fake: FakeStripe;
beforeAll(async () => {
  fake = await startFakeStripe();
});
afterAll(async () => {
  await fake?.close();
});

function provider(overrides: Partial<StripeSettings> = {}): PaymentProvider {
  return createStripeProvider({
    secretKey: fake.secretKey,
    webhookSecrets: [WEBHOOK_SECRET, CONNECT_WEBHOOK_SECRET],
    api: fake.api,
    timeoutMs: 5_000,
    maxNetworkRetries: 0,
    ...overrides,
  });
}

/** The provider error a call failed with (fails the test if it did not fail). */
async function providerError(promise: Promise<unknown>): Promise<PaymentProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaymentProviderError);
  const e = error as PaymentProviderError;
  expect(e.status).toBe(502);
  expect(e.code).toBe('PAYMENT_PROVIDER_ERROR');
  return e;
}

function webhookError(fn: () => unknown): WebhookSignatureError {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(WebhookSignatureError);
  expect((error as WebhookSignatureError).status).toBe(400);
  return error as WebhookSignatureError;
}

const lastRequest = (path: string) => fake.requests.filter((r) => r.path === path).at(-1)!;

describe('settings', () => {
  it('picks stripe when STRIPE_SECRET_KEY is set and parses STRIPE_API_BASE for the SDK', () => {
    const config = loadConfig({
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_a, whsec_b',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(config.payments).toEqual({
      provider: 'stripe',
      stripe: {
        secretKey: 'sk_test_x',
        webhookSecrets: ['whsec_a', 'whsec_b'],
        api: { host: '127.0.0.1', port: 12111, protocol: 'http' },
        timeoutMs: 10_000,
        maxNetworkRetries: 1,
      },
    });
    expect(createPaymentProvider(config, { publicUrl: 'http://x', secret: 'a'.repeat(32) }).name).toBe('stripe');
  });

  it('defaults to the sandbox and refuses half a Stripe configuration', () => {
    const config = loadConfig({});
    expect(config.payments).toEqual({ provider: 'sandbox', stripe: undefined });
    expect(createPaymentProvider(config, { publicUrl: 'http://x', secret: 'a'.repeat(32) }).name).toBe('sandbox');
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(/STRIPE_WEBHOOK_SECRET is required/);
    expect(() => loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_a' })).toThrow(/STRIPE_SECRET_KEY is not/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'k', STRIPE_WEBHOOK_SECRET: 'w', STRIPE_API_BASE: 'http://h/v1' })).toThrow(
      /without a path/,
    );
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'k', STRIPE_WEBHOOK_SECRET: 'w', STRIPE_TIMEOUT_MS: 'soon' })).toThrow(/integer/);
  });
});

describe('connected accounts', () => {
  it('creates an Express account with the transfers capability, once per user', async () => {
    const userId = uuid();
    const first = await provider().createConnectedAccount({ userId, email: 'w@example.com' });
    expect(first.accountId).toMatch(/^acct_/);
    const sent = lastRequest('/v1/accounts');
    expect(sent.idempotencyKey).toBe(`gm-acct-${userId}`);
    expect(sent.params).toEqual({
      type: 'express',
      email: 'w@example.com',
      capabilities: { transfers: { requested: 'true' } },
      metadata: { user_id: userId },
    });

    const before = fake.counts().accounts;
    const again = await provider().createConnectedAccount({ userId, email: 'w@example.com' });
    expect(again).toEqual(first);
    expect(fake.counts().accounts).toBe(before);
    expect(lastRequest('/v1/accounts').replayed).toBe(true);
  });

  it('links to onboarding and reports the account verified once onboarding is done', async () => {
    const p = provider();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const { url } = await p.createOnboardingLink({ accountId, refreshUrl: 'http://app/refresh', returnUrl: 'http://app/return' });
    expect(url.startsWith(`${fake.url}/setup/e/${accountId}/`)).toBe(true);
    expect(lastRequest('/v1/account_links').params).toEqual({
      account: accountId,
      refresh_url: 'http://app/refresh',
      return_url: 'http://app/return',
      type: 'account_onboarding',
    });
    expect(await p.getAccount(accountId)).toEqual({ accountId, verified: false });

    fake.verifyAccount(accountId);
    expect(await p.getAccount(accountId)).toEqual({ accountId, verified: true });
  });

  it('completes onboarding through the hosted link, which sends the worker back to the return URL', async () => {
    const p = provider();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const { url } = await p.createOnboardingLink({ accountId, refreshUrl: 'http://app/refresh', returnUrl: 'http://app/return' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://app/return');
    expect((await p.getAccount(accountId)).verified).toBe(true);
  });

  it('turns an unknown account into a provider error', async () => {
    const e = await providerError(provider().getAccount('acct_missing'));
    expect(e.failure).toBe('rejected');
    expect(e.providerCode).toBe('resource_missing');
  });
});

describe('payments', () => {
  const input = (milestoneId: string, amountCents = 12_500) => ({
    milestoneId,
    amountCents,
    currency: 'USD',
    description: 'Milestone 1',
    metadata: { contract_id: 'c-1' },
  });

  it('creates a PaymentIntent carrying the milestone and its idempotency key', async () => {
    const milestoneId = uuid();
    const payment = await provider().createPayment(input(milestoneId));
    expect(payment.paymentId).toMatch(/^pi_/);
    expect(payment.clientSecret.startsWith(`${payment.paymentId}_secret_`)).toBe(true);
    expect(payment.status).toBe('requires_payment_method');
    const sent = lastRequest('/v1/payment_intents');
    expect(sent.idempotencyKey).toBe(`gm-fund-${milestoneId}`);
    expect(fake.paymentIntents.get(payment.paymentId)).toMatchObject({
      amount: 12_500,
      currency: 'usd',
      description: 'Milestone 1',
      livemode: false,
      metadata: { contract_id: 'c-1', milestone_id: milestoneId },
      transfer_group: `gm-milestone-${milestoneId}`,
      automatic_payment_methods: { enabled: true },
    });
    expect(await provider().getPayment(payment.paymentId)).toEqual(payment);
  });

  it('returns the same intent for the same milestone, one after another and concurrently', async () => {
    const milestoneId = uuid();
    const before = fake.counts().paymentIntents;
    const first = await provider().createPayment(input(milestoneId));
    const again = await provider().createPayment(input(milestoneId));
    const concurrent = await Promise.all([1, 2, 3].map(() => provider().createPayment(input(milestoneId))));
    for (const p of [again, ...concurrent]) expect(p).toEqual(first);
    expect(fake.counts().paymentIntents).toBe(before + 1);
  });

  it('waits out a concurrent request still in flight (409) and gets its intent, not a second one', async () => {
    const milestoneId = uuid();
    const before = fake.counts().paymentIntents;
    // The first request is held at Stripe until the second has met its key in flight (409).
    const held = gate();
    fake.holdNext(held.until, 'POST /v1/payment_intents');
    const p = provider({ maxNetworkRetries: 2 });
    const both = Promise.all([p.createPayment(input(milestoneId)), p.createPayment(input(milestoneId))]);
    const keyed = () => fake.requests.filter((r) => r.idempotencyKey === `gm-fund-${milestoneId}`);
    await expect.poll(() => keyed().map((r) => r.status)).toContain(409);
    held.open();
    const [a, b] = await both;
    expect(b).toEqual(a);
    expect(fake.counts().paymentIntents).toBe(before + 1);
  });

  it('refuses to reuse a milestone for a different amount', async () => {
    const milestoneId = uuid();
    await provider().createPayment(input(milestoneId, 5_000));
    const before = fake.counts().paymentIntents;
    const e = await providerError(provider().createPayment(input(milestoneId, 6_000)));
    expect(e.failure).toBe('idempotency_conflict');
    expect(fake.counts().paymentIntents).toBe(before);
  });

  it('maps Stripe 500 and 402 answers to PAYMENT_PROVIDER_ERROR', async () => {
    const before = fake.counts().paymentIntents;
    fake.failNext(500);
    expect((await providerError(provider().createPayment(input(uuid())))).failure).toBe('provider_error');
    fake.failNext(402);
    const declined = await providerError(provider().createPayment(input(uuid())));
    expect(declined.failure).toBe('declined');
    expect(declined.providerCode).toBe('card_declined');
    expect(fake.counts().paymentIntents).toBe(before);
  });

  it('retries a 500 when retries are allowed, and still creates one intent', async () => {
    const milestoneId = uuid();
    const before = fake.counts().paymentIntents;
    fake.failNext(500, undefined, 'POST /v1/payment_intents');
    const payment = await provider({ maxNetworkRetries: 1 }).createPayment(input(milestoneId));
    expect(fake.paymentIntents.get(payment.paymentId)?.metadata).toMatchObject({ milestone_id: milestoneId });
    expect(fake.counts().paymentIntents).toBe(before + 1);
  });

  it('reports validation failures without creating anything', async () => {
    const before = fake.counts().paymentIntents;
    const e = await providerError(provider().createPayment(input(uuid(), 10)));
    expect(e.failure).toBe('rejected');
    expect(e.providerCode).toBe('amount_too_small');
    expect(fake.counts().paymentIntents).toBe(before);
  });

  it('reports a wrong API key without repeating any of it', async () => {
    const wrongKey = 'sk_test_wrong_key_0123456789';
    const e = await providerError(provider({ secretKey: wrongKey }).createPayment(input(uuid())));
    expect(e.failure).toBe('authentication');
    expect(e.message).not.toContain('sk_test');
    expect(e.message).not.toContain('6789');
    expect(fake.requests.at(-1)?.status).toBe(401);
  });

  it('times out, and a repeat after the time-out returns the intent Stripe made meanwhile', async () => {
    const milestoneId = uuid();
    const before = fake.counts().paymentIntents;
    fake.delayNext(1_500, 'POST /v1/payment_intents');
    const e = await providerError(provider({ timeoutMs: 500 }).createPayment(input(milestoneId)));
    expect(e.failure).toBe('timeout');
    // Stripe finished the request the client gave up on; the same key now replays it.
    await vi.waitFor(() => expect(fake.counts().paymentIntents).toBe(before + 1), { timeout: 60_000 });
    const payment = await provider().createPayment(input(milestoneId));
    expect(fake.paymentIntents.get(payment.paymentId)?.metadata).toMatchObject({ milestone_id: milestoneId });
    expect(fake.counts().paymentIntents).toBe(before + 1);
  });

  it('reports an unreachable provider', async () => {
    const closed = await startFakeStripe({ secretKey: fake.secretKey });
    await closed.close();
    const e = await providerError(provider({ api: closed.api }).createPayment(input(uuid())));
    expect(e.failure).toBe('unreachable');
  });

  it('reports an unknown payment id', async () => {
    expect((await providerError(provider().getPayment('pi_missing'))).providerCode).toBe('resource_missing');
  });
});

describe('transfers', () => {
  async function verifiedAccount(p: PaymentProvider) {
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    fake.verifyAccount(accountId);
    return accountId;
  }

  it('pays a verified account once per milestone', async () => {
    const p = provider();
    const accountId = await verifiedAccount(p);
    const milestoneId = uuid();
    const before = fake.counts().transfers;
    const { transferId } = await p.createTransfer({ milestoneId, amountCents: 9_000, currency: 'USD', destinationAccountId: accountId });
    expect(transferId).toMatch(/^tr_/);
    expect(lastRequest('/v1/transfers').idempotencyKey).toBe(`gm-payout-${milestoneId}`);
    expect(fake.transfers.get(transferId)).toMatchObject({
      amount: 9_000,
      currency: 'usd',
      destination: accountId,
      transfer_group: `gm-milestone-${milestoneId}`,
      metadata: { milestone_id: milestoneId },
      source_transaction: null,
    });
    const again = await p.createTransfer({ milestoneId, amountCents: 9_000, currency: 'USD', destinationAccountId: accountId });
    expect(again.transferId).toBe(transferId);
    expect(fake.counts().transfers).toBe(before + 1);
  });

  it('ties the transfer to the funding charge when given the payment', async () => {
    const p = provider();
    const accountId = await verifiedAccount(p);
    const milestoneId = uuid();
    const payment = await p.createPayment({ milestoneId, amountCents: 7_000, currency: 'usd', metadata: {} });
    const before = fake.counts().transfers;
    const unpaid = await providerError(
      p.createTransfer({ milestoneId, amountCents: 7_000, currency: 'usd', destinationAccountId: accountId, paymentId: payment.paymentId }),
    );
    expect(unpaid.providerCode).toBe('payment_not_charged');
    expect(fake.counts().transfers).toBe(before);

    const charged = fake.succeedPaymentIntent(payment.paymentId);
    const { transferId } = await p.createTransfer({
      milestoneId,
      amountCents: 7_000,
      currency: 'usd',
      destinationAccountId: accountId,
      paymentId: payment.paymentId,
    });
    expect(fake.transfers.get(transferId)?.source_transaction).toBe(charged.latest_charge);
  });

  it('cannot pay an account that has not finished onboarding', async () => {
    const p = provider();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const before = fake.counts().transfers;
    const e = await providerError(
      p.createTransfer({ milestoneId: uuid(), amountCents: 100, currency: 'usd', destinationAccountId: accountId }),
    );
    expect(e.providerCode).toBe('insufficient_capabilities_for_transfer');
    expect(fake.counts().transfers).toBe(before);
  });
});

describe('refunds', () => {
  async function verifiedAccount(p: PaymentProvider) {
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    fake.verifyAccount(accountId);
    return accountId;
  }

  /** A charged payment of `amountCents` for a new milestone. */
  async function charged(p: PaymentProvider, amountCents: number) {
    const milestoneId = uuid();
    const payment = await p.createPayment({ milestoneId, amountCents, currency: 'usd', metadata: {} });
    fake.succeedPaymentIntent(payment.paymentId);
    return { milestoneId, paymentId: payment.paymentId };
  }

  it('refunds all of a payment, once per milestone, keyed by it', async () => {
    const p = provider();
    const { milestoneId, paymentId } = await charged(p, 6_000);
    const before = fake.counts().refunds;
    const { refundId } = await p.refund({ milestoneId, paymentId, amountCents: 6_000, currency: 'USD' });
    expect(refundId).toMatch(/^re_/);
    expect(lastRequest('/v1/refunds').idempotencyKey).toBe(`gm-refund-${milestoneId}`);
    expect(fake.refunds.get(refundId)).toMatchObject({ amount: 6_000, payment_intent: paymentId, metadata: { milestone_id: milestoneId } });
    // A retry (the settlement job's) gets the same refund, not a second one.
    expect((await p.refund({ milestoneId, paymentId, amountCents: 6_000, currency: 'USD' })).refundId).toBe(refundId);
    expect(fake.counts().refunds).toBe(before + 1);
  });

  it('refunds part of a payment (a split): the transfer of the rest draws on what is left of the charge', async () => {
    const p = provider();
    const accountId = await verifiedAccount(p);
    const { milestoneId, paymentId } = await charged(p, 10_000);
    await p.refund({ milestoneId, paymentId, amountCents: 4_000, currency: 'usd' });
    const tooMuch = await providerError(
      p.createTransfer({ milestoneId: uuid(), amountCents: 6_001, currency: 'usd', destinationAccountId: accountId, paymentId }),
    );
    expect(tooMuch.providerCode).toBe('insufficient_funds');
    const { transferId } = await p.createTransfer({
      milestoneId,
      amountCents: 6_000,
      currency: 'usd',
      destinationAccountId: accountId,
      paymentId,
    });
    expect(fake.transfers.get(transferId)).toMatchObject({ amount: 6_000 });
  });

  it('cannot refund a payment that was never charged, or more than it took', async () => {
    const p = provider();
    const milestoneId = uuid();
    const payment = await p.createPayment({ milestoneId, amountCents: 1_000, currency: 'usd', metadata: {} });
    expect(
      (await providerError(p.refund({ milestoneId, paymentId: payment.paymentId, amountCents: 1_000, currency: 'usd' }))).providerCode,
    ).toBe('charge_not_refundable');
    const other = await charged(p, 1_000);
    expect((await providerError(p.refund({ ...other, amountCents: 1_001, currency: 'usd' }))).providerCode).toBe('amount_too_large');
  });
});

describe('webhooks', () => {
  const sign = (event: Record<string, unknown>, secret = WEBHOOK_SECRET, timestamp?: number) =>
    fake.signedWebhook(event, secret, timestamp);

  it('maps account.updated, verified or not, from the Connect endpoint', async () => {
    const p = provider();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const pending = fake.buildEvent('account.updated', fake.accounts.get(accountId)!, { account: accountId });
    const a = sign(pending, CONNECT_WEBHOOK_SECRET);
    expect(p.parseWebhook(a.body, a.signature)).toEqual({ eventId: pending.id, type: 'account.updated', accountId, verified: false });

    const done = fake.buildEvent('account.updated', fake.verifyAccount(accountId), { account: accountId });
    const b = sign(done, CONNECT_WEBHOOK_SECRET);
    expect(p.parseWebhook(Buffer.from(b.body), b.signature)).toEqual({
      eventId: done.id,
      type: 'account.updated',
      accountId,
      verified: true,
    });
  });

  it('maps payment_intent.succeeded and payment_intent.payment_failed with the milestone from metadata', async () => {
    const p = provider();
    const milestoneId = uuid();
    const payment = await p.createPayment({ milestoneId, amountCents: 4_200, currency: 'eur', metadata: { contract_id: 'c-9' } });
    const failed = fake.buildEvent('payment_intent.payment_failed', fake.failPaymentIntent(payment.paymentId));
    const f = sign(failed);
    expect(p.parseWebhook(f.body, f.signature)).toEqual({
      eventId: failed.id,
      type: 'payment.failed',
      paymentId: payment.paymentId,
      milestoneId,
      reason: 'Your card was declined.',
    });

    const succeeded = fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(payment.paymentId));
    const s = sign(succeeded);
    expect(p.parseWebhook(s.body, s.signature)).toEqual({
      eventId: succeeded.id,
      type: 'payment.succeeded',
      paymentId: payment.paymentId,
      milestoneId,
      amountCents: 4_200,
      currency: 'eur',
    });
  });

  it('passes other event types through as ignored, and a payment without our metadata with no milestone', () => {
    const other = fake.buildEvent('charge.refunded', { id: 'ch_1', object: 'charge' });
    const o = sign(other);
    expect(provider().parseWebhook(o.body, o.signature)).toEqual({ eventId: other.id, type: 'ignored', stripeType: 'charge.refunded' });
    const foreign = fake.buildEvent('payment_intent.succeeded', {
      id: 'pi_x',
      object: 'payment_intent',
      amount: 100,
      amount_received: 100,
      currency: 'usd',
      metadata: {},
    });
    const s = sign(foreign);
    expect(provider().parseWebhook(s.body, s.signature)).toMatchObject({ type: 'payment.succeeded', paymentId: 'pi_x', milestoneId: null });
  });

  it('rejects a missing, wrong, tampered, malformed or stale signature', () => {
    const p = provider();
    const event = fake.buildEvent('payment_intent.succeeded', {
      id: 'pi_1',
      object: 'payment_intent',
      amount: 100,
      currency: 'usd',
      metadata: {},
    });
    const good = sign(event);
    expect(webhookError(() => p.parseWebhook(good.body, undefined)).message).toMatch(/missing/);
    expect(webhookError(() => p.parseWebhook(good.body, sign(event, 'whsec_someone_else').signature)).message).toMatch(/does not match/);
    expect(webhookError(() => p.parseWebhook(good.body.replace('"amount":100', '"amount":1'), good.signature)).message).toMatch(
      /does not match/,
    );
    expect(webhookError(() => p.parseWebhook(good.body, 'garbage')).message).toMatch(/malformed/);
    const stale = sign(event, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600);
    expect(webhookError(() => p.parseWebhook(stale.body, stale.signature)).message).toMatch(/too old/);
  });

  it('rejects a correctly signed body that is not a Stripe event', () => {
    const p = provider();
    const notJson = 'not json';
    expect(
      webhookError(() => p.parseWebhook(notJson, Stripe.webhooks.generateTestHeaderString({ payload: notJson, secret: WEBHOOK_SECRET })))
        .message,
    ).toMatch(/not JSON/);
    const notEvent = JSON.stringify({ hello: 'world' });
    expect(
      webhookError(() => p.parseWebhook(notEvent, Stripe.webhooks.generateTestHeaderString({ payload: notEvent, secret: WEBHOOK_SECRET })))
        .message,
    ).toMatch(/not a Stripe event/);
  });
});
