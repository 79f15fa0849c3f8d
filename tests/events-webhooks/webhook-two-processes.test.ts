// Webhook delivery with two real `node dist/server.js` processes on one Postgres (DATABASE_URL only):
// each runs its own event relay and its own pg-boss workers. Events written through both, half to
// each, reach the user's endpoint on a loopback receiver exactly once each (no duplicates in normal
// operation), signed with the endpoint's secret, each body the event as GET /api/events shows it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { freshServerDatabase } from '../helpers/server.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { killRunningServers, spawnServer, waitUntilHealthy, type ServerProcess } from '../helpers/server-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { openDatabase } from '../../db/client.ts';
import { events } from '../../db/schema.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import type { paths } from '../../src/generated/api.d.ts';

type Api = ReturnType<typeof createClient<paths>>;

describe.runIf(process.env.DATABASE_URL)('webhook delivery from two `node dist/server.js` processes on one Postgres', () => {
  let fresh: Awaited<ReturnType<typeof freshServerDatabase>> | undefined;
  let database: Awaited<ReturnType<typeof openDatabase>> | undefined;
  let receiver: WebhookReceiver | undefined;
  let processes: ServerProcess[] = [];

  beforeAll(async () => {
    fresh = await freshServerDatabase(process.env.DATABASE_URL!);
    receiver = await startWebhookReceiver();
    const env = {
      DATABASE_URL: fresh.url,
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    // One after the other: each migrates the fresh database at start-up.
    processes = [await spawnServer(env), await spawnServer(env)];
    for (const p of processes) await waitUntilHealthy(p);
    database = await openDatabase({ databaseUrl: fresh.url, max: 2 });
  }, 120_000);

  afterAll(async () => {
    killRunningServers();
    await Promise.all(processes.map((p) => p.exited));
    await database?.close();
    await receiver?.close();
    await fresh?.drop();
  }, 120_000);

  it('events written through both processes arrive once each, signed, as GET /api/events shows them', async () => {
    const db = database!.db;
    const hooks = receiver!;
    const user = await createUserWithKey({ db }, 'Webhook receiver');
    const api: Api[] = processes.map((p) => {
      const c = createClient<paths>({ baseUrl: p.url, headers: { authorization: `Bearer ${user.apiKey}` } });
      c.use(specValidation);
      return c;
    });
    const [a, b] = api as [Api, Api];

    // createUserWithKey wrote api_key.created; once a relay has dispatched it (before the endpoint
    // exists), it is not for the endpoint, and every later event of the user is.
    const [keyEvent] = await db.select().from(events).where(eq(events.resourceId, user.apiKeyId));
    await vi.waitFor(
      async () => {
        const [row] = await db.select({ dispatchedAt: events.dispatchedAt }).from(events).where(eq(events.id, keyEvent!.id));
        expect(row!.dispatchedAt).not.toBeNull();
      },
      { timeout: 60_000, interval: 100 },
    );

    const created = await a.POST('/api/webhooks', { body: { url: `${hooks.url}/two-processes` } });
    expect(created.response.status).toBe(201);
    const endpoint = created.data!;

    // 20 gigs created and then updated (40 events), alternately through A and B, each update through
    // the process that did not create the gig; ten requests at a time.
    const N = 20;
    const gigIds: string[] = [];
    for (let batch = 0; batch < N; batch += 10) {
      const made = await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const i = batch + j;
          const res = await api[i % 2]!.POST('/api/gigs', {
            body: { title: `Two-process gig ${i}`, description: 'x', tags: ['rust'], rate_cents: 5000 },
          });
          expect(res.response.status).toBe(201);
          return res.data!.id;
        }),
      );
      gigIds.push(...made);
    }
    for (let batch = 0; batch < N; batch += 10) {
      await Promise.all(
        gigIds.slice(batch, batch + 10).map(async (id, j) => {
          const i = batch + j;
          const res = await api[(i + 1) % 2]!.PATCH('/api/gigs/{id}', {
            params: { path: { id } },
            body: { title: `Two-process gig ${i}, edited` },
          });
          expect(res.response.status).toBe(200);
        }),
      );
    }

    // Every event of the user, newest first, all pages (read through B).
    const feed: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const page = await b.GET('/api/events', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
      expect(page.response.status).toBe(200);
      feed.push(...(page.data!.data as unknown as Record<string, unknown>[]));
      cursor = page.data!.next_cursor ?? undefined;
    } while (cursor);
    const expected = feed.filter((e) => e.id !== keyEvent!.id);
    expect(feed.some((e) => e.id === keyEvent!.id)).toBe(true);
    expect(expected.map((e) => e.type).sort()).toEqual([...Array(N).fill('gig.created'), ...Array(N).fill('gig.updated')]);

    // Wait until each has arrived and each attempt is in the delivery log (recorded after the
    // receiver answered, so nothing is still in flight).
    const expectedIds = expected.map((e) => e.id as string).sort();
    const deliveries = async () => {
      const rows: { event_id: string; attempt: number; succeeded: boolean; status_code: number | null }[] = [];
      let next: string | undefined;
      do {
        const page = await a.GET('/api/webhooks/{id}/deliveries', {
          params: { path: { id: endpoint.id }, query: { limit: 100, ...(next ? { cursor: next } : {}) } },
        });
        expect(page.response.status).toBe(200);
        rows.push(...page.data!.data);
        next = page.data!.next_cursor ?? undefined;
      } while (next);
      return rows;
    };
    await vi.waitFor(
      async () => {
        expect([...new Set(hooks.received.map((r) => r.headers['webhook-id']))].sort()).toEqual(expectedIds);
        expect((await deliveries()).length).toBeGreaterThanOrEqual(expectedIds.length);
      },
      { timeout: 30_000, interval: 250 },
    );

    // Exactly once: as many requests as events, one per webhook-id, each attempt 1 and a success.
    const log = await deliveries();
    expect(log.map((d) => d.event_id).sort()).toEqual(expectedIds);
    expect(log.every((d) => d.attempt === 1 && d.succeeded && d.status_code === 200)).toBe(true);
    const received = hooks.received.filter((r) => r.path === '/two-processes');
    expect(received).toHaveLength(hooks.received.length);
    expect(received.map((r) => r.headers['webhook-id']).sort()).toEqual(expectedIds);

    // Each signed with the endpoint's secret, each body the event as GET /api/events shows it.
    const verifier = new Webhook(endpoint.secret);
    const byId = new Map(expected.map((e) => [e.id as string, e]));
    for (const r of received) {
      const event = byId.get(r.headers['webhook-id'] as string);
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifier.verify(r.body, r.headers as Record<string, string>)).toEqual(event);
      expect(JSON.parse(r.body)).toEqual(event);
    }
  }, 120_000);
});
