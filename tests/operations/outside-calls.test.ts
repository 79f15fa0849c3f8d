// No transaction is open while a request waits on something outside the process, whatever its
// headers: requests with an Idempotency-Key whose outside service (a webhook receiver, the model,
// the payment provider) is slow leave every other request answering. The slow services are real
// local servers that hold their answer; the others' requests must finish while they still hold it.
// On the embedded database one open transaction would stop every other query; on a server
// Postgres, more slow requests than the pool has connections would starve it, and the server's
// backends would show "idle in transaction" meanwhile.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { pendingContract, respondedDispute } from '../helpers/lifecycle.ts';
import { activeStripeContract, startStripeServer } from '../helpers/stripe-mode.ts';

const HOLD_MS = 2_500;
/** More than the server's pool of connections (10), so that held connections would starve it. */
const SLOW_REQUESTS = 12;

let chat: FakeChat;
let receiver: WebhookReceiver;
let server: TestServer;

beforeAll(async () => {
  chat = await startFakeChat();
  receiver = await startWebhookReceiver();
  server = await startTestServer({ ...chat.env, LLM_TIMEOUT_MS: '10000', WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([chat?.close(), receiver?.close()]);
});

/** The server's backends sitting in an open transaction (server Postgres only; 0 on PGlite). */
async function idleInTransaction(url: string | undefined): Promise<number> {
  if (!url) return 0;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = 'gigmarket' and state like 'idle in transaction%'`;
    return row!.n as number;
  } finally {
    await admin.end();
  }
}

/**
 * Starts the slow requests, then, while the outside service still holds them, makes the other
 * requests; each of those must finish before the first slow one does.
 */
async function othersAnswerWhileHeld(target: TestServer, slow: () => Promise<Response | { response: Response }>[], bystander: User) {
  let firstSlowDone = Number.POSITIVE_INFINITY;
  const slowRequests = slow().map((p) =>
    p.then((r) => {
      firstSlowDone = Math.min(firstSlowDone, performance.now());
      return 'response' in r ? r.response : r;
    }),
  );
  await new Promise((r) => setTimeout(r, 300)); // the slow requests reach their outside service
  const openTransactions = await idleInTransaction(target.databaseUrl);
  const others = await Promise.all([
    fetch(`${target.url}/api/health`).then(async (r) => ({ status: r.status, at: performance.now() })),
    bystander.api.GET('/api/credits').then((r) => ({ status: r.response.status, at: performance.now() })),
    bystander.api
      .POST('/api/gigs', { body: { title: 'Written meanwhile' }, params: { header: { 'Idempotency-Key': `meanwhile-${Date.now()}` } } })
      .then((r) => ({ status: r.response.status, at: performance.now() })),
  ]);
  expect(others.map((o) => o.status)).toEqual([200, 200, 201]);
  for (const other of others) expect(other.at).toBeLessThan(firstSlowDone);
  expect(openTransactions).toBe(0);
  return Promise.all(slowRequests);
}

describe('a slow outside service under an Idempotency-Key holds no transaction', () => {
  it('webhook test deliveries to a slow receiver', async () => {
    const [owner, bystander] = await server.users('Slow Receiver Owner', 'Bystander One');
    const endpoint = await owner.api.POST('/api/webhooks', { body: { url: `${receiver.url}/slow` } });
    expect(endpoint.response.status).toBe(201);
    receiver.script(...Array.from({ length: SLOW_REQUESTS }, () => ({ status: 200, delayMs: HOLD_MS })));
    const responses = await othersAnswerWhileHeld(
      server,
      () =>
        Array.from({ length: SLOW_REQUESTS }, (_, i) =>
          owner.api.POST('/api/webhooks/{id}/test', {
            params: { path: { id: endpoint.data!.id }, header: { 'Idempotency-Key': `slow-test-${i}` } },
          }),
        ),
      bystander,
    );
    expect(responses.map((r) => r.status)).toEqual(Array(SLOW_REQUESTS).fill(200));
    // Each key replays its first answer: no second delivery.
    const delivered = receiver.received.length;
    const replay = await owner.api.POST('/api/webhooks/{id}/test', {
      params: { path: { id: endpoint.data!.id }, header: { 'Idempotency-Key': 'slow-test-0' } },
    });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(receiver.received.length).toBe(delivered);
  });

  it('a recommendation from a slow model', async () => {
    const [client, worker, bystander] = await server.users('Slow Model Client', 'Slow Model Worker', 'Bystander Two');
    const { disputeId: id } = await respondedDispute(client, worker);
    const advice = {
      outcome: 'split',
      worker_share_percent: 60,
      reasoning: 'Half the files fail.',
      cited_evidence_ids: [],
      confidence: 0.6,
    };
    chat.answerNext({ content: advice, delayMs: HOLD_MS });
    const before = chat.requests.length;
    const [answer] = await othersAnswerWhileHeld(
      server,
      () => [client.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id }, header: { 'Idempotency-Key': 'slow-rec' } } })],
      bystander,
    );
    expect(answer!.status).toBe(200);
    expect(chat.requests.length).toBe(before + 1);
  });
});

describe('a slow payment provider under an Idempotency-Key holds no transaction', () => {
  let stripe: FakeStripe;
  let paid: TestServer;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    paid = await startStripeServer(stripe, { STRIPE_TIMEOUT_MS: '10000' });
  });
  afterAll(async () => {
    await paid?.close();
    await stripe?.close();
  });

  it('funding a milestone', async () => {
    const client = await paid.user('Slow Provider Client');
    const worker = await paid.user('Slow Provider Worker');
    const milestones = Array.from({ length: SLOW_REQUESTS }, (_, i) => ({ title: `Part ${i + 1}`, amount_cents: 1_000 + i }));
    const { contract } = await activeStripeContract(paid, stripe, client, worker, milestones);
    const bystander = await paid.user('Bystander Three');
    for (let i = 0; i < SLOW_REQUESTS; i++) stripe.delayNext(HOLD_MS, 'POST /v1/payment_intents');
    const responses = await othersAnswerWhileHeld(
      paid,
      () =>
        contract.milestones.map((m, i) =>
          client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
            params: { path: { id: contract.id, milestoneId: m.id }, header: { 'Idempotency-Key': `slow-fund-${i}` } },
          }),
        ),
      bystander,
    );
    expect(responses.map((r) => r.status)).toEqual(Array(SLOW_REQUESTS).fill(200));
    expect(stripe.counts().paymentIntents).toBe(SLOW_REQUESTS);
  });

  it("the worker's approval (their provider account and onboarding link made)", async () => {
    const client = await paid.user('Slow Approval Client');
    const worker = await paid.user('Slow Approval Worker');
    const bystander = await paid.user('Bystander Four');
    const { contract } = await pendingContract(client, worker);
    const approve = (user: User, key?: string) =>
      user.api.POST('/api/contracts/{id}/approve', {
        params: { path: { id: contract.id }, header: key ? { 'Idempotency-Key': key } : {} },
      });
    expect((await approve(client)).response.status).toBe(200);
    stripe.delayNext(HOLD_MS, 'POST /v1/accounts');
    const [answer] = await othersAnswerWhileHeld(paid, () => [approve(worker, 'slow-approve')], bystander);
    expect(answer!.status).toBe(200);
    const replay = await approve(worker, 'slow-approve');
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.connect_url).toMatch(/^http/);
    expect(replay.data!.contract.status).toBe('pending_freelancer_kyc');
  });
});
