// No transaction is open while a request waits on something outside the process, whatever its
// headers: requests with an Idempotency-Key whose outside service (a webhook receiver, the model,
// the payment provider) is slow leave every other request answering. The slow services are real
// local servers that hold their answer behind a gate the test opens (tests/helpers/gate.ts); the
// others' requests must finish while the gate is still shut.
// On the embedded database one open transaction would stop every other query; on a server
// Postgres, more slow requests than the pool has connections would starve it, and the server's
// backends would show "idle in transaction" meanwhile.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { asApproval, pendingContract, respondedDispute } from '../helpers/lifecycle.ts';
import { activeStripeContract, startStripeServer } from '../helpers/stripe-mode.ts';
import { gate, type Gate } from '../helpers/gate.ts';

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

/** How long the slow requests are held before the database is asked about open transactions. */
const HELD_MS = 600;

/**
 * The server's backends that have sat in an open transaction, doing nothing, for longer than
 * `forMs` (server Postgres only; 0 on PGlite). A transaction held across a slow outside call sits
 * there for as long as the call is held; one between two of its statements (the event relay's,
 * say) only for an instant, which a count of that instant would catch on a loaded machine.
 */
async function idleInTransaction(url: string | undefined, forMs: number): Promise<number> {
  if (!url) return 0;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = 'gigmarket' and state like 'idle in transaction%'
        and state_change < now() - make_interval(secs => ${forMs / 1000})`;
    return row!.n as number;
  } finally {
    await admin.end();
  }
}

/**
 * Starts the slow requests and waits until the outside service holds all of them (`held`); then
 * makes the other requests, which must all finish while it still does; then opens the gate.
 */
async function othersAnswerWhileHeld(
  target: TestServer,
  slow: () => Promise<Response | { response: Response }>[],
  bystander: User,
  hold: { gate: Gate; held: () => boolean },
) {
  let slowDone = 0;
  const slowRequests = slow().map((p) =>
    p.then((r) => {
      slowDone++;
      return 'response' in r ? r.response : r;
    }),
  );
  await expect.poll(hold.held, { message: 'the slow requests reach their outside service' }).toBe(true);
  // Held for a while: a transaction open across the call would by now have been idle all that time.
  await new Promise((resolve) => setTimeout(resolve, HELD_MS));
  const openTransactions = await idleInTransaction(target.databaseUrl, HELD_MS / 2);
  const others = await Promise.all([
    fetch(`${target.url}/api/health`).then((r) => r.status),
    bystander.api.GET('/api/credits').then((r) => r.response.status),
    bystander.api
      .POST('/api/gigs', { body: { title: 'Written meanwhile' }, params: { header: { 'Idempotency-Key': `meanwhile-${Date.now()}` } } })
      .then((r) => r.response.status),
  ]);
  expect(others).toEqual([200, 200, 201]);
  expect(slowDone, 'a slow request ended before the gate opened').toBe(0);
  expect(openTransactions).toBe(0);
  hold.gate.open();
  return Promise.all(slowRequests);
}

describe('a slow outside service under an Idempotency-Key holds no transaction', () => {
  it('webhook test deliveries to a slow receiver', async () => {
    const [owner, bystander] = await server.users('Slow Receiver Owner', 'Bystander One');
    const endpoint = await owner.api.POST('/api/webhooks', { body: { url: `${receiver.url}/slow` } });
    expect(endpoint.response.status).toBe(201);
    const held = gate();
    const before = receiver.received.length;
    receiver.script('/slow', ...Array.from({ length: SLOW_REQUESTS }, () => ({ status: 200, until: held.until })));
    const responses = await othersAnswerWhileHeld(
      server,
      () =>
        Array.from({ length: SLOW_REQUESTS }, (_, i) =>
          owner.api.POST('/api/webhooks/{id}/test', {
            params: { path: { id: endpoint.data!.id }, header: { 'Idempotency-Key': `slow-test-${i}` } },
          }),
        ),
      bystander,
      { gate: held, held: () => receiver.received.length - before === SLOW_REQUESTS },
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
    const held = gate();
    chat.answerNext({ content: advice, until: held.until });
    const before = chat.requests.length;
    const [answer] = await othersAnswerWhileHeld(
      server,
      () => [client.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id }, header: { 'Idempotency-Key': 'slow-rec' } } })],
      bystander,
      { gate: held, held: () => chat.requests.length === before + 1 },
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
    const held = gate();
    for (let i = 0; i < SLOW_REQUESTS; i++) stripe.holdNext(held.until, 'POST /v1/payment_intents');
    const responses = await othersAnswerWhileHeld(
      paid,
      () =>
        contract.milestones.map((m, i) =>
          client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
            params: { path: { id: contract.id, milestoneId: m.id }, header: { 'Idempotency-Key': `slow-fund-${i}` } },
          }),
        ),
      bystander,
      { gate: held, held: () => stripe.holding() === SLOW_REQUESTS },
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
    const held = gate();
    stripe.holdNext(held.until, 'POST /v1/accounts');
    const [answer] = await othersAnswerWhileHeld(paid, () => [approve(worker, 'slow-approve')], bystander, {
      gate: held,
      held: () => stripe.holding() === 1,
    });
    expect(answer!.status).toBe(200);
    const replay = asApproval(await approve(worker, 'slow-approve'));
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data!.connect_url).toMatch(/^http/);
    expect(replay.data!.contract.status).toBe('pending_freelancer_kyc');
  });
});
