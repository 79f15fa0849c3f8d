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
  /** `crashAt`: GIGMARKET_CRASH_AT, `<place>:<Idempotency-Key>` (src/crash-points.ts). */
  async start(crashAt?: `${CrashPoint}:${string}`) {
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

/**
 * One deployment per kind of operation, its places taken in turn: the process that answers the
 * retry of the request killed at one place is armed (GIGMARKET_CRASH_AT=<place>:<key>) to die at
 * the next place on the next request's key. n places, n + 1 processes: each started process is a
 * second or more of PGlite's start on a loaded machine, and the tests share them.
 */
class Walk {
  db!: ProcessDatabase;
  app!: Deployment;
  readonly points: readonly CrashPoint[];
  readonly keyPrefix: string;
  constructor(points: readonly CrashPoint[], keyPrefix: string) {
    this.points = points;
    this.keyPrefix = keyPrefix;
  }
  /** The Idempotency-Key of the request killed at place i. */
  key(i: number): string {
    return `${this.keyPrefix}-${i}`;
  }
  async open(env: Record<string, string>) {
    this.db = await processDatabase();
    this.app = new Deployment(await freePort(), { ...this.db.env, ...env });
  }
  /** Start armed for place i on key i (undefined past the last: not armed). */
  async start(i: number) {
    await this.app.start(i < this.points.length ? `${this.points[i]!}:${this.key(i)}` : undefined);
  }
  async close() {
    this.app?.stop();
    await this.db?.drop();
  }
}

describe('a crash at each recovery point, then a retry: one effect', () => {
  let stripe: FakeStripe;
  let chat: FakeChat;
  beforeAll(async () => {
    [stripe, chat] = await Promise.all([startFakeStripe(), startFakeChat()]);
  });
  afterAll(async () => {
    await Promise.all([stripe?.close(), chat?.close()]);
  });

  describe('funding a milestone at the payment provider', () => {
    const walk = new Walk(POINTS, 'fund');
    let client: TestUser;
    let contract: Awaited<ReturnType<typeof activeStripeContract>>['contract'];
    beforeAll(async () => {
      await walk.open({
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: `${WEBHOOK_SECRET},${CONNECT_WEBHOOK_SECRET}`,
        STRIPE_API_BASE: stripe.url,
        STRIPE_MAX_NETWORK_RETRIES: '0',
      });
      const [c, worker] = await walk.app.users('Crash Fund Client', 'Crash Fund Worker');
      client = c;
      await walk.start(0);
      ({ contract } = await activeStripeContract({ url: walk.app.url } as TestServer, stripe, client, worker, [
        { title: 'Killed after the outside call', amount_cents: 4_200 },
        { title: 'Killed before the final transaction', amount_cents: 4_300 },
        { title: 'Killed after the final transaction', amount_cents: 4_400 },
      ]));
    }, 120_000);
    afterAll(() => walk.close());

    POINTS.forEach((point, i) => {
      it(`killed ${point}`, async () => {
        const milestoneId = contract.milestones[i]!.id;
        const fund = () =>
          client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
            params: { path: { id: contract.id, milestoneId }, header: { 'Idempotency-Key': walk.key(i) } },
          });
        const creates = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').length;
        const intentsBefore = stripe.counts().paymentIntents;
        const createsBefore = creates();

        await expect(fund()).rejects.toThrow();
        await walk.app.crashed();
        expect(creates()).toBe(createsBefore + 1);
        await walk.start(i + 1);
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
      }, 120_000);
    });
  });

  describe('a dispute recommendation from the model', () => {
    const walk = new Walk(POINTS, 'advise');
    let client: TestUser;
    let worker: TestUser;
    beforeAll(async () => {
      await walk.open({ ...chat.env, LLM_TIMEOUT_MS: '5000' });
      [client, worker] = await walk.app.users('Crash Rec Client', 'Crash Rec Worker');
      await walk.start(0);
    }, 120_000);
    afterAll(() => walk.close());

    POINTS.forEach((point, i) => {
      it(`killed ${point}`, async () => {
        const { disputeId: id } = await respondedDispute(client, worker);
        const recommend = () =>
          client.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id }, header: { 'Idempotency-Key': walk.key(i) } } });
        const asked = chat.requests.length;

        await expect(recommend()).rejects.toThrow();
        await walk.app.crashed();
        expect(chat.requests.length).toBe(asked + 1);
        await walk.start(i + 1);
        const answer = await retry(recommend);
        expect(answer.response.status).toBe(200);
        expect(chat.requests.length).toBe(asked + (point === 'after-outside-call' ? 2 : 1));
        expect(answer.data!.recommendation).not.toBeNull();

        const again = await recommend();
        expect(again.response.headers.get('idempotent-replayed')).toBe('true');
        expect(again.data).toEqual(answer.data);
        const events = await client.api.GET('/api/events', { params: { query: { resource_id: id } } });
        expect(events.data!.data.filter((e) => e.type === 'dispute.recommended')).toHaveLength(1);
      }, 120_000);
    });
  });

  describe('creating a gig (one transaction)', () => {
    const points = ['before-final-transaction', 'after-final-transaction'] as const;
    const walk = new Walk(points, 'gig');
    let client: TestUser;
    beforeAll(async () => {
      await walk.open({});
      [client] = await walk.app.users('Crash Gig Client');
      await walk.start(0);
    }, 120_000);
    afterAll(() => walk.close());

    points.forEach((point, i) => {
      it(`killed ${point}`, async () => {
        const create = () =>
          client.api.POST('/api/gigs', { body: { title: `Killed ${point}` }, params: { header: { 'Idempotency-Key': walk.key(i) } } });
        await expect(create()).rejects.toThrow();
        await walk.app.crashed();
        await walk.start(i + 1);
        const answer = await retry(create);
        expect(answer.response.status).toBe(201);
        const mine = await client.api.GET('/api/gigs', { params: { query: { owner: 'me' } } });
        expect(mine.data!.data.filter((g) => g.title === `Killed ${point}`)).toHaveLength(1);
      }, 120_000);
    });
  });
});
