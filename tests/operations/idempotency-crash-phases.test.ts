import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import type { CrashPoint } from '../../src/crash-points.ts';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { respondedDispute } from '../helpers/lifecycle.ts';
import { freePort, type TestServer, type TestUser } from '../helpers/server.ts';
import {
  killRunningServers,
  processDatabase,
  spawnServer,
  usersBeforeStart,
  waitUntilHealthy,
  type ProcessDatabase,
  type ServerProcess,
} from '../helpers/server-process.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { activeStripeContract, CONNECT_WEBHOOK_SECRET, WEBHOOK_SECRET } from '../helpers/stripe-mode.ts';

const LOCK_TIMEOUT_S = 1;

/** A server process on a fixed port (so clients outlive it), and its users' API clients. */
class Deployment {
  server: ServerProcess | undefined;
  readonly url: string;
  readonly port: number;
  readonly env: Record<string, string>;
  constructor(port: number, env: Record<string, string>) {
    this.port = port;
    this.env = env;
    this.url = `http://127.0.0.1:${port}`;
  }
  async start(crashAt?: CrashPoint) {
    const env = { ...this.env, PUBLIC_URL: this.url, LOG_LEVEL: 'warn', IDEMPOTENCY_LOCK_TIMEOUT: String(LOCK_TIMEOUT_S) };
    this.server = await spawnServer(crashAt ? { ...env, GIGMARKET_CRASH_AT: crashAt } : env, this.port);
    await waitUntilHealthy(this.server);
  }
  /** Users with API keys, made before any server runs, and their API clients. */
  async users<const Names extends string[]>(...names: Names) {
    const made = await usersBeforeStart(this.env as ProcessDatabase['env'], ...names);
    return made.map(({ userId, apiKey, apiKeyId }) => {
      const api = createClient<paths>({ baseUrl: this.url, headers: { authorization: `Bearer ${apiKey}` } });
      api.use(specValidation);
      return { userId, apiKey, apiKeyId, api };
    }) as { [K in keyof Names]: TestUser };
  }
  /** The process died at its crash point: its request got no answer. */
  async crashed() {
    expect(await this.server!.exited).toMatchObject({ signal: 'SIGKILL' });
  }
  stop() {
    this.server?.child.kill('SIGKILL');
  }
}

/** Retries until the dead attempt's hold on the key has timed out: a 409 until then, then the answer. */
async function retry<T extends { response: Response }>(send: () => Promise<T>): Promise<T> {
  for (let i = 0; i < 20; i++) {
    const res = await send();
    if (res.response.status !== 409) return res;
    expect(Number(res.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error('the key stayed held');
}

const POINTS: CrashPoint[] = ['after-outside-call', 'before-final-transaction', 'after-final-transaction'];

afterAll(() => killRunningServers());

describe('a crash at each recovery point, then a retry: one effect', () => {
  let stripe: FakeStripe;
  let chat: FakeChat;
  beforeAll(async () => {
    [stripe, chat] = await Promise.all([startFakeStripe(), startFakeChat()]);
  });
  afterAll(async () => {
    await Promise.all([stripe?.close(), chat?.close()]);
  });

  for (const point of POINTS) {
    it(`funding a milestone at the payment provider, killed ${point}`, async () => {
      const db = await processDatabase();
      const stripeEnv = {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: `${WEBHOOK_SECRET},${CONNECT_WEBHOOK_SECRET}`,
        STRIPE_API_BASE: stripe.url,
        STRIPE_MAX_NETWORK_RETRIES: '0',
      };
      const app = new Deployment(await freePort(), { ...db.env, ...stripeEnv });
      try {
        const [client, worker] = await app.users('Crash Fund Client', 'Crash Fund Worker');
        await app.start(point);
        const { contract } = await activeStripeContract({ url: app.url } as TestServer, stripe, client, worker, [
          { title: 'Only part', amount_cents: 4_200 },
        ]);
        const milestoneId = contract.milestones[0]!.id;
        const fund = () =>
          client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
            params: { path: { id: contract.id, milestoneId }, header: { 'Idempotency-Key': 'fund-once' } },
          });
        const creates = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').length;
        const intentsBefore = stripe.counts().paymentIntents;
        const createsBefore = creates();

        await expect(fund()).rejects.toThrow();
        await app.crashed();
        expect(creates()).toBe(createsBefore + 1);
        await app.start();
        const answer = await retry(fund);
        expect(answer.response.status).toBe(200);
        // Asked again only when the crash came before the answer was recorded; Stripe's key replays it.
        expect(creates()).toBe(createsBefore + (point === 'after-outside-call' ? 2 : 1));
        expect(stripe.counts().paymentIntents).toBe(intentsBefore + 1);
        expect(stripe.paymentIntents.has(answer.data!.payment_id!)).toBe(true);
        expect(answer.data!.milestone.status).toBe('funding');
        expect(answer.response.headers.get('idempotent-replayed')).toBe(point === 'after-final-transaction' ? 'true' : null);

        const again = await fund();
        expect(again.response.headers.get('idempotent-replayed')).toBe('true');
        expect(again.data).toEqual(answer.data);
        const events = await client.api.GET('/api/events', { params: { query: { resource_id: milestoneId } } });
        expect(events.data!.data.filter((e) => e.type === 'milestone.funding')).toHaveLength(1);
      } finally {
        app.stop();
        await db.drop();
      }
    }, 120_000);

    it(`a dispute recommendation from the model, killed ${point}`, async () => {
      const db = await processDatabase();
      const app = new Deployment(await freePort(), { ...db.env, ...chat.env, LLM_TIMEOUT_MS: '5000' });
      try {
        const [client, worker] = await app.users('Crash Rec Client', 'Crash Rec Worker');
        await app.start(point);
        const { disputeId: id } = await respondedDispute(client, worker);
        const recommend = () =>
          client.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id }, header: { 'Idempotency-Key': 'advise-once' } } });
        const asked = chat.requests.length;

        await expect(recommend()).rejects.toThrow();
        await app.crashed();
        expect(chat.requests.length).toBe(asked + 1);
        await app.start();
        const answer = await retry(recommend);
        expect(answer.response.status).toBe(200);
        expect(chat.requests.length).toBe(asked + (point === 'after-outside-call' ? 2 : 1));
        expect(answer.data!.recommendation).not.toBeNull();

        const again = await recommend();
        expect(again.response.headers.get('idempotent-replayed')).toBe('true');
        expect(again.data).toEqual(answer.data);
        const events = await client.api.GET('/api/events', { params: { query: { resource_id: id } } });
        expect(events.data!.data.filter((e) => e.type === 'dispute.recommended')).toHaveLength(1);
      } finally {
        app.stop();
        await db.drop();
      }
    }, 120_000);
  }

  for (const point of ['before-final-transaction', 'after-final-transaction'] as const) {
    it(`creating a gig (one transaction), killed ${point}`, async () => {
      const db = await processDatabase();
      const app = new Deployment(await freePort(), db.env);
      try {
        const [client] = await app.users('Crash Gig Client');
        await app.start(point);
        const create = () =>
          client.api.POST('/api/gigs', { body: { title: `Killed ${point}` }, params: { header: { 'Idempotency-Key': 'gig-once' } } });
        await expect(create()).rejects.toThrow();
        await app.crashed();
        await app.start();
        const answer = await retry(create);
        expect(answer.response.status).toBe(201);
        const mine = await client.api.GET('/api/gigs', { params: { query: { owner: 'me' } } });
        expect(mine.data!.data.filter((g) => g.title === `Killed ${point}`)).toHaveLength(1);
      } finally {
        app.stop();
        await db.drop();
      }
    }, 120_000);
  }
});
