// A test server that runs the Stripe provider (the real stripe-node SDK) against the local fake of
// Stripe's HTTP API, and the webhook deliveries Stripe would make, signed as Stripe signs them.
import { expect } from 'vitest';
import type { FakeStripe } from '../fakes/stripe.ts';
import { startTestServer, type TestServer, type TestUser as User } from './server.ts';
import { assertErrorEnvelope } from './spec-validator.ts';
import { approvedContract, type Milestone } from './lifecycle.ts';

type Json = Record<string, unknown>;

/** The platform endpoint's signing secret, and the Connect endpoint's (Stripe gives each its own). */
export const WEBHOOK_SECRET = 'whsec_test_platform_endpoint';
export const CONNECT_WEBHOOK_SECRET = 'whsec_test_connect_endpoint';

export function startStripeServer(fake: FakeStripe, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_WEBHOOK_SECRET: `${WEBHOOK_SECRET},${CONNECT_WEBHOOK_SECRET}`,
    STRIPE_API_BASE: fake.url,
    STRIPE_TIMEOUT_MS: '2000',
    STRIPE_MAX_NETWORK_RETRIES: '0',
    PAYOUT_DAY_SECONDS: '1',
    ...env,
  });
}

export interface WebhookResponse {
  status: number;
  body: any;
}

/** The webhook's answers (src/payments/webhook-route.ts; outside the published spec): an ack, or an error envelope. */
const WEBHOOK_ERROR_STATUSES = [400, 413, 415, 429, 500];
function assertWebhookResponse(status: number, body: unknown): void {
  if (status === 200) {
    expect(body).toEqual({ received: true, outcome: expect.stringMatching(/^(applied|duplicate|ignored)$/) });
    return;
  }
  expect(WEBHOOK_ERROR_STATUSES, `webhook answered ${status}: ${JSON.stringify(body)}`).toContain(status);
  assertErrorEnvelope(`POST /api/stripe/webhook -> ${status}`, body);
}

/** POSTs a raw body to the webhook, exactly these bytes; the response is checked (an ack or the error envelope). */
export async function postWebhook(server: TestServer, body: string, headers: Record<string, string>): Promise<WebhookResponse> {
  const res = await fetch(`${server.url}/api/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body,
  });
  const text = await res.text();
  const parsed = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  assertWebhookResponse(res.status, parsed);
  return { status: res.status, body: parsed };
}

/** Delivers an event as Stripe does: JSON body, Stripe-Signature over it. */
export async function deliver(server: TestServer, fake: FakeStripe, event: Json, secret = WEBHOOK_SECRET): Promise<WebhookResponse> {
  const { body, signature } = fake.signedWebhook(event, secret);
  return postWebhook(server, body, { 'stripe-signature': signature });
}

/** The Connect account id in a fake Stripe account link (`<fake>/setup/e/<account>/<token>`). */
export function accountIdOf(connectUrl: string): string {
  const id = /\/setup\/e\/([^/]+)\//.exec(new URL(connectUrl).pathname)?.[1];
  if (!id) throw new Error(`not a fake Stripe account link: ${connectUrl}`);
  return id;
}

/**
 * The worker finishes Stripe's hosted onboarding at connect_url (the fake verifies the account and
 * redirects to our return page); then Stripe tells us with account.updated on the Connect endpoint.
 */
export async function onboardAtStripe(server: TestServer, fake: FakeStripe, connectUrl: string) {
  const accountId = accountIdOf(connectUrl);
  const hosted = await fetch(connectUrl, { redirect: 'manual' });
  expect(hosted.status).toBe(302);
  expect(hosted.headers.get('location')).toMatch(new RegExp(`^${server.url}/connect/return\\?contract_id=`));
  const event = fake.buildEvent('account.updated', fake.accounts.get(accountId)!, { account: accountId });
  const delivered = await deliver(server, fake, event, CONNECT_WEBHOOK_SECRET);
  return { accountId, event, delivered };
}

/** The client pays at Stripe (the PaymentIntent succeeds), and Stripe sends payment_intent.succeeded. */
export async function payAtStripe(server: TestServer, fake: FakeStripe, paymentId: string) {
  const intent = fake.succeedPaymentIntent(paymentId);
  const event = fake.buildEvent('payment_intent.succeeded', intent);
  return { event, delivered: await deliver(server, fake, event) };
}

/** An active contract on a Stripe-mode server: both approved, the worker onboarded, the webhook applied. */
export async function activeStripeContract(server: TestServer, fake: FakeStripe, client: User, worker: User, milestones?: Milestone[]) {
  const approved = await approvedContract(client, worker, milestones);
  const { accountId, delivered } = await onboardAtStripe(server, fake, approved.connectUrl);
  expect(delivered).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
  const contract = await client.api.GET('/api/contracts/{id}', { params: { path: { id: approved.contract.id } } });
  expect(contract.data!.status).toBe('active');
  return { ...approved, accountId, contract: contract.data! };
}
