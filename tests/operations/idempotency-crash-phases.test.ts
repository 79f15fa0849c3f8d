// Idempotency-Key across a crash at each recovery point, with real `node dist/server.js` processes
// on either database: the process dies (SIGKILL, at a crash point named by GIGMARKET_CRASH_AT)
// right after an outside call answered, after its result was recorded, or after the final
// transaction committed; a new process then answers the retry. Each retry has exactly one effect:
// one PaymentIntent at the payment provider's fake, one stored recommendation, one gig; the model
// and the provider are asked again only when the crash came before their answer was recorded.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import type { CrashPoint } from '../../src/crash-points.ts';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { respondedDispute } from '../helpers/lifecycle.ts';
import { freePort, freshServerDatabase, type TestServer } from '../helpers/server.ts';
import { killRunningServers, spawnServer, waitUntilHealthy, type ServerProcess } from '../helpers/server-process.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { activeStripeContract, CONNECT_WEBHOOK_SECRET, WEBHOOK_SECRET } from '../helpers/stripe-mode.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const LOCK_TIMEOUT_S = 1;

interface Database {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh database: a new one on the Postgres server when DATABASE_URL is set, else a PGlite data directory. */
async function freshDatabase(): Promise<Database> {
  if (process.env.DATABASE_URL) {
    const fresh = await freshServerDatabase(process.env.DATABASE_URL);
    return { env: { DATABASE_URL: fresh.url }, drop: fresh.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-crash-'));
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A user and an API key, made by the operator CLI before any server runs. */
function cliUser(env: Record<string, string>, name: string): Promise<{ userId: string; apiKey: string }> {
  const { DATABASE_URL: _inherited, ...rest } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['src/cli.ts', 'create-user', name, '--json'],
      { cwd: root, env: { ...rest, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        const created = JSON.parse(stdout);
        resolve({ userId: created.user_id, apiKey: created.api_key });
      },
    );
  });
}

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
  async user(name: string) {
    const { userId, apiKey } = await cliUser(this.env, name);
    const api = createClient<paths>({ baseUrl: this.url, headers: { authorization: `Bearer ${apiKey}` } });
    api.use(specValidation);
    return { userId, apiKey, apiKeyId: '', api };
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
      const db = await freshDatabase();
      const stripeEnv = {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: `${WEBHOOK_SECRET},${CONNECT_WEBHOOK_SECRET}`,
        STRIPE_API_BASE: stripe.url,
        STRIPE_MAX_NETWORK_RETRIES: '0',
      };
      const app = new Deployment(await freePort(), { ...db.env, ...stripeEnv });
      try {
        const client = await app.user('Crash Fund Client');
        const worker = await app.user('Crash Fund Worker');
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
      const db = await freshDatabase();
      const app = new Deployment(await freePort(), { ...db.env, ...chat.env, LLM_TIMEOUT_MS: '5000' });
      try {
        const client = await app.user('Crash Rec Client');
        const worker = await app.user('Crash Rec Worker');
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
      const db = await freshDatabase();
      const app = new Deployment(await freePort(), db.env);
      try {
        const client = await app.user('Crash Gig Client');
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
