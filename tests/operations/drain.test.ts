// A real server process (node dist/server.js) drains on SIGTERM (src/shutdown.ts): readiness answers
// 503 at once, new connections are refused (after SHUTDOWN_DELAY_MS when set), the request in flight
// and the running webhook delivery finish, and the process exits 0 within SHUTDOWN_GRACE_MS, though
// a trace collector hangs; past it, with a request still in flight, it exits 1 anyway.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../db/client.ts';
import { rowsOf } from '../../db/sql.ts';
import { closeServer, listenLocal } from '../fakes/local-server.ts';
import { startWebhookReceiver } from '../fakes/webhook-receiver.ts';
import { heldJsonRequest } from '../helpers/held-request.ts';
import {
  get,
  killRunningServers,
  processDatabase,
  spawnServer,
  usersBeforeStart,
  waitUntilHealthy,
  type ProcessDatabase,
  type ServerProcess,
} from '../helpers/server-process.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  killRunningServers();
  for (const cleanup of cleanups) await cleanup();
});

async function until(what: string, condition: () => boolean | Promise<boolean>, server: ServerProcess, ms = 15_000) {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting for ${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A started server on a database of its own, with a user and key made before it opened it. */
async function started(env: Record<string, string>) {
  const database = await processDatabase();
  cleanups.push(database.drop);
  const [user] = await usersBeforeStart(database.env, 'Drained');
  // At debug level each request is logged as it arrives: how a request is seen in flight.
  const server = await spawnServer({ ...database.env, LOG_LEVEL: 'debug', WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', ...env });
  await waitUntilHealthy(server);
  return { server, database, apiKey: user.apiKey };
}

/** A POST /api/gigs in flight: routed and authenticated, its body still arriving. */
async function gigInFlight(server: ServerProcess, apiKey: string, title: string) {
  const arrivals = () =>
    server.logs().filter((l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/api/gigs').length;
  const before = arrivals();
  const held = heldJsonRequest(
    server.url,
    'POST',
    '/api/gigs',
    { authorization: `Bearer ${apiKey}` },
    { title, description: 'x', tags: ['go'] },
  );
  void held.answer.catch(() => undefined); // awaited by the test, or reset with the process
  await until('the request in flight', () => arrivals() > before, server);
  return held;
}

/** Whether a new connection is refused (or, as Fastify answers one that raced the close, 503). */
const connectionRefused = (server: ServerProcess) =>
  get(`${server.url}/api/health/live`).then(
    (res) => res.status === 503,
    (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
  );

async function rows<T>(database: ProcessDatabase, query: ReturnType<typeof sql>): Promise<T[]> {
  const env = database.env;
  const db = await openDatabase('DATABASE_URL' in env ? { databaseUrl: env.DATABASE_URL, max: 1 } : { dataDir: env.DATA_DIR });
  try {
    return await rowsOf<T>(db.db, query);
  } finally {
    await db.close();
  }
}

describe('node dist/server.js on SIGTERM', () => {
  it('answers not ready at once and keeps accepting for SHUTDOWN_DELAY_MS, then refuses, finishes the request in flight and exits 0', async () => {
    const { server, apiKey } = await started({ SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_GRACE_MS: '10000' });
    await until(
      'the start-up lines',
      () => server.logs().some((l) => typeof l.msg === 'string' && l.msg.startsWith('gigmarket listening on')),
      server,
    );
    expect(server.logs().map((l) => l.msg)).toContain('no metrics endpoint: set METRICS_PORT or METRICS_TOKEN to serve /metrics');
    expect((await get(`${server.url}/api/health/live`)).status).toBe(200);
    const before = await get(`${server.url}/api/health/ready`);
    expect([before.status, JSON.parse(before.body)]).toEqual([200, { status: 'ready', database: 'ok', migrations: 'ok', jobs: 'ok' }]);

    const held = await gigInFlight(server, apiKey, 'Finished while draining');
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    await until('the shutdown to begin', () => server.logs().some((l) => l.msg === 'shutting down'), server);
    const ready = await get(`${server.url}/api/health/ready`);
    expect([ready.status, JSON.parse(ready.body)]).toEqual([503, { status: 'draining', database: 'ok', migrations: 'ok', jobs: 'ok' }]);
    expect((await get(`${server.url}/api/health/live`)).status).toBe(200);

    await until('new connections refused', () => connectionRefused(server), server);
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(1_900); // not before SHUTDOWN_DELAY_MS
    held.finish();
    const answer = await held.answer;
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ title: 'Finished while draining' });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(12_000);
    expect(server.logs().map((l) => l.msg)).toContain('shut down');
  }, 120_000);

  it('refuses new connections at once, finishes the request in flight and the running webhook delivery, and exits 0', async () => {
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    let answerDelivery!: () => void;
    receiver.script('/drain', { status: 200, until: new Promise<void>((resolve) => (answerDelivery = resolve)) });
    const { server, database, apiKey } = await started({ SHUTDOWN_GRACE_MS: '10000' });
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', connection: 'close' };
    const hook = await fetch(`${server.url}/api/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${receiver.url}/drain`, event_types: ['gig.created'] }),
    });
    expect(hook.status).toBe(201);
    const gig = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'Announced', description: 'x', tags: ['go'] }),
    });
    expect(gig.status).toBe(201);
    await receiver.waitFor(1); // the delivery job runs, its answer held back
    const held = await gigInFlight(server, apiKey, 'Also finished');

    const signalled = performance.now();
    server.child.kill('SIGTERM');
    await until('new connections refused', () => connectionRefused(server), server, 3_000);
    await new Promise((r) => setTimeout(r, 300)); // both still in flight, the process waits for them
    expect(server.child.exitCode).toBeNull();
    answerDelivery();
    held.finish();
    expect((await held.answer).status).toBe(201);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(
      server.logs().filter((l) => (l.level ?? 0) >= 50),
      'no errors logged',
    ).toEqual([]);

    // The delivery was recorded as made, and its job completed, before the database closed; the gig
    // written during the drain is left for a process that stays: its delivery queued, not started,
    // or (when the relay had stopped before it) its event still in the outbox, not yet relayed.
    const deliveries = await rows<{ succeeded: boolean }>(database, sql`select succeeded from webhook_deliveries`);
    expect(deliveries).toEqual([{ succeeded: true }]);
    const jobs = await rows<{ state: string }>(
      database,
      sql`select state from pgboss.job where name = 'webhook-delivery' order by created_on`,
    );
    const [relayed] = await rows<{ n: number }>(
      database,
      sql`select count(*)::int as n from events where type = 'gig.created' and dispatched_at is null`,
    );
    expect(jobs.length).toBeLessThanOrEqual(2);
    expect(jobs[0]).toEqual({ state: 'completed' });
    const leftBehind = { queued: jobs[1], unrelayed: relayed!.n };
    expect([
      { queued: { state: 'created' }, unrelayed: 0 },
      { queued: undefined, unrelayed: 1 },
    ]).toContainEqual(leftBehind);
    expect(receiver.received).toHaveLength(1);
  }, 120_000);

  it('exits 0 within SHUTDOWN_GRACE_MS when its work is done, though the trace collector never answers', async () => {
    // A collector that takes every export and answers none: the last traces cannot be sent.
    const collector = http.createServer(() => {});
    const collectorUrl = await listenLocal(collector);
    cleanups.push(() => closeServer(collector));
    const { server, apiKey } = await started({ SHUTDOWN_GRACE_MS: '4000', OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl });
    const gig = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ title: 'Traced', description: 'x', tags: ['go'] }),
    });
    expect(gig.status).toBe(201); // its spans wait to be sent
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    expect(await server.exited, server.output()).toEqual({ code: 0, signal: null });
    expect(performance.now() - signalled).toBeLessThan(4_000);
    expect(server.logs().map((l) => l.msg)).toEqual(
      expect.arrayContaining(['shutting down without waiting any longer for the last traces to be sent', 'shut down']),
    );
  }, 120_000);

  it('exits 1 once SHUTDOWN_GRACE_MS has passed with a request still in flight', async () => {
    const { server, apiKey } = await started({ SHUTDOWN_GRACE_MS: '1500' });
    const held = await gigInFlight(server, apiKey, 'Never finished');
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    const took = performance.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(6_000);
    await expect(held.answer).rejects.toThrow(); // reset with the process
  }, 120_000);
});
