// /metrics (src/metrics/): refused without its token, served with it, requests labelled by
// operationId (never a URL), the database's gauges following what the database holds, and a
// scrape answered in time while the database hangs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config.ts';
import { READ_LIMIT_MS } from '../../src/metrics/database-gauges.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { fundedSandboxContract } from '../helpers/lifecycle.ts';
import { parseExposition, sampleValue } from '../helpers/metrics.ts';
import { operationIds } from '../helpers/operations.ts';
import { freePort, startTestServer, testFileServer } from '../helpers/server.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';
const server = testFileServer({ METRICS_TOKEN: TOKEN, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCALE: '0.001' });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const scrape = (url: string, authorization?: string) =>
  fetch(url, { headers: { connection: 'close', ...(authorization ? { authorization } : {}) } });

async function samples() {
  const res = await scrape(`${server.url}/metrics`, `Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** Names a non-API route is counted under (src/metrics/http.ts). */
const ROUTE_NAMES = [
  'mcp',
  'oauth',
  'sign_in',
  'payment_provider',
  'payment_pages',
  'docs',
  'metrics',
  'method_not_allowed',
  'page',
  'unmatched',
];

const GAUGES = [
  'gigmarket_draining',
  'gigmarket_outbox_undispatched_events',
  'gigmarket_outbox_lag_seconds',
  'gigmarket_payouts',
  'gigmarket_payouts_overdue_seconds',
  'gigmarket_webhook_endpoints_disabled',
  'gigmarket_mcp_sessions',
  'gigmarket_jobs',
];
const POSTGRES_GAUGES = ['gigmarket_db_pool_max_connections', 'gigmarket_db_connections', 'gigmarket_db_connections_waiting_for_lock'];

describe('/metrics on the main port (METRICS_TOKEN)', () => {
  it('refuses a request without the token, or with another, with 401 and the envelope', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-of-the-right-length', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await scrape(`${server.url}/metrics`, authorization);
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect((await res.json()).error).toMatchObject({ code: 'UNAUTHENTICATED', issues: [] });
    }
  });

  it('serves the text exposition to the bearer of the token, with bounded names', async () => {
    const res = await scrape(`${server.url}/metrics`, `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { families } = parseExposition(await res.text());
    const ours = [...families.keys()].filter((name) => name.startsWith('gigmarket_')).sort();
    const counted = ['gigmarket_http_requests_total', 'gigmarket_http_request_duration_seconds', 'gigmarket_rate_limit_refusals_total'];
    const webhooks = ['gigmarket_webhook_attempts_total', 'gigmarket_webhook_attempt_duration_seconds'];
    const gauges = server.databaseUrl ? [...GAUGES, ...POSTGRES_GAUGES] : GAUGES;
    expect(ours).toEqual([...counted, ...webhooks, ...gauges, 'gigmarket_metrics_read_failures_total'].sort());
    expect(families.get('process_cpu_seconds_total')).toBe('counter'); // prom-client's process metrics
  });

  it('labels requests by operationId or a fixed name, never by URL', async () => {
    const [user] = await server.users('Counted');
    expect((await server.anonymous.GET('/api/health')).response.status).toBe(200);
    expect((await user.api.GET('/api/keys/verify')).response.status).toBe(200);
    expect((await fetch(`${server.url}/no/such/page-4711?q=secret`, { headers: { connection: 'close' } })).status).toBe(404);

    const { samples: all } = await samples();
    const requests = all.filter((s) => s.name === 'gigmarket_http_requests_total');
    expect(sampleValue(requests, 'gigmarket_http_requests_total', { operation: 'getHealth', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(requests, 'gigmarket_http_requests_total', { operation: 'verifyApiKey', status: '200' })).toBe(1);
    expect(sampleValue(requests, 'gigmarket_http_requests_total', { operation: 'unmatched', status: '404' })).toBe(1);
    const allowed = new Set([...operationIds, ...ROUTE_NAMES]);
    const labels = all.flatMap((s) => (s.labels.operation === undefined ? [] : [s.labels.operation]));
    expect(labels.filter((l) => !allowed.has(l))).toEqual([]);
    expect(all.filter((s) => Object.values(s.labels).some((v) => v.includes('/') || v.includes('4711')))).toEqual([]);
    const latency = sampleValue(all, 'gigmarket_http_request_duration_seconds_count', { operation: 'verifyApiKey' });
    expect(latency).toBe(1);
  });

  it('counts webhook delivery attempts by result, with their latency', async () => {
    const [user] = await server.users('Hooked');
    receiver.script('/attempts', { status: 500 }); // then the fallback, 200
    const hook = await user.api.POST('/api/webhooks', { body: { url: `${receiver.url}/attempts`, event_types: ['gig.created'] } });
    expect(hook.response.status).toBe(201);
    expect((await user.api.POST('/api/gigs', { body: { title: 'Announced', description: 'x', tags: ['rust'] } })).response.status).toBe(
      201,
    );
    await receiver.waitFor(2);
    let all = (await samples()).samples;
    for (let i = 0; i < 100 && sampleValue(all, 'gigmarket_webhook_attempts_total', { result: 'delivered' }) !== 1; i++) {
      await new Promise((r) => setTimeout(r, 20));
      all = (await samples()).samples;
    }
    expect(sampleValue(all, 'gigmarket_webhook_attempts_total', { result: 'status' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_webhook_attempts_total', { result: 'delivered' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_webhook_attempt_duration_seconds_count')).toBe(2);
  });

  it('shows an event the relay has not handed on as outbox lag, and a queued job in its queue', async () => {
    await server.runtime.relay.stop(); // the relay would hand the event on at once
    const [user] = await server.users('Outbox');
    expect(
      (await user.api.POST('/api/gigs', { body: { title: 'Waits in the outbox', description: 'x', tags: ['rust'] } })).response.status,
    ).toBe(201);
    const { boss } = server.runtime.jobs;
    await boss.createQueue('metrics-probe');
    await boss.send('metrics-probe', { n: 1 });
    await boss.send('metrics-probe', { n: 2 }, { startAfter: 3600 });
    await boss.supervise('metrics-probe'); // pg-boss counts a queue on its monitor pass (every minute)
    await new Promise((r) => setTimeout(r, 20)); // the event's age, measured by the database's clock

    const { samples: all } = await samples();
    expect(sampleValue(all, 'gigmarket_outbox_undispatched_events')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(all, 'gigmarket_outbox_lag_seconds')).toBeGreaterThan(0);
    expect(sampleValue(all, 'gigmarket_jobs', { queue: 'metrics-probe', state: 'ready' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_jobs', { queue: 'metrics-probe', state: 'deferred' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_jobs', { queue: 'metrics-probe', state: 'active' })).toBe(0);
    expect(sampleValue(all, 'gigmarket_draining')).toBe(0);
    if (server.databaseUrl) {
      expect(sampleValue(all, 'gigmarket_db_pool_max_connections')).toBe(5); // tests/helpers/server.ts opens 5
      expect(sampleValue(all, 'gigmarket_db_connections', { application: 'gigmarket', state: 'active' })).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts live MCP sessions, disabled endpoints, and payouts scheduled then held by a dispute', async () => {
    const [client, worker] = await server.users('Payer', 'Payee');
    const mcp = await connectMcp(server.url, 'http', client.apiKey);
    const created = await client.api.POST('/api/webhooks', { body: { url: `${receiver.url}/disabled`, event_types: null } });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect((await client.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { enabled: false } })).response.status).toBe(
      200,
    );
    const { contract } = await fundedSandboxContract(client, worker, [
      { title: 'First', amount_cents: 1_000 },
      { title: 'Second', amount_cents: 2_000 },
    ]);
    const path = (milestoneId: string) => ({ params: { path: { id: contract.id, milestoneId } } });
    const [first, second] = contract.milestones;
    expect((await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', path(first!.id))).response.status).toBe(200);

    let all = (await samples()).samples;
    expect(sampleValue(all, 'gigmarket_mcp_sessions')).toBe(1);
    expect(sampleValue(all, 'gigmarket_webhook_endpoints_disabled', { reason: 'manual' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_payouts', { state: 'scheduled' })).toBe(1); // payout_delay_days: 3
    expect(sampleValue(all, 'gigmarket_payouts', { state: 'held' })).toBe(0);

    const dispute = await client.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: contract.id } },
      body: { reason: 'work_not_as_agreed', description: 'Half of it fails.', milestone_ids: [second!.id] },
    });
    expect(dispute.response.status).toBe(201);
    await mcp.close();
    all = (await samples()).samples;
    expect(sampleValue(all, 'gigmarket_payouts', { state: 'scheduled' })).toBe(0);
    expect(sampleValue(all, 'gigmarket_payouts', { state: 'held' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_payouts', { state: 'due' })).toBe(0);
  });

  it('answers within its time limit while the database hangs, leaving out and counting the gauges it could not read', async () => {
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // A transaction holding the events table: the outbox's reading waits for it (on PGlite, one
    // connection, every reading does).
    const holder = server.runtime.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table events in access exclusive mode`);
      locked();
      await hung;
    });
    try {
      await holding;
      const started = performance.now();
      const { families, samples: all } = await samples();
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(READ_LIMIT_MS - 100);
      expect(took).toBeLessThan(READ_LIMIT_MS + 2_000);
      expect(families.get('process_cpu_seconds_total')).toBe('counter');
      expect(sampleValue(all, 'gigmarket_draining')).toBe(0);
      expect(all.filter((s) => s.name.startsWith('gigmarket_outbox_'))).toEqual([]);
      for (const metric of ['gigmarket_outbox_undispatched_events', 'gigmarket_outbox_lag_seconds'])
        expect(sampleValue(all, 'gigmarket_metrics_read_failures_total', { metric, reason: 'timeout' }), metric).toBe(1);
    } finally {
      release();
      await holder;
    }
    const { samples: after } = await samples();
    expect(sampleValue(after, 'gigmarket_outbox_undispatched_events')).toBeGreaterThanOrEqual(0);
    const timedOut = { metric: 'gigmarket_outbox_lag_seconds', reason: 'timeout' };
    expect(sampleValue(after, 'gigmarket_metrics_read_failures_total', timedOut)).toBe(1); // counted once
  });

  // Last: it spends this address's budget for the window.
  it('counts rate-limit refusals by operation and budget', async () => {
    let refused = 0;
    for (let i = 0; i < 200 && !refused; i++) if ((await server.anonymous.GET('/api/gigs')).response.status === 429) refused++;
    expect(refused).toBe(1);
    const { samples: all } = await samples();
    expect(sampleValue(all, 'gigmarket_rate_limit_refusals_total', { operation: 'listGigs', policy: 'address' })).toBe(1);
    expect(sampleValue(all, 'gigmarket_http_requests_total', { operation: 'listGigs', status: '429' })).toBe(1);
  });
});

describe('/metrics on a port of its own (METRICS_PORT)', () => {
  it('serves /metrics there, with the token when one is set, and not on the main port', async () => {
    const port = await freePort();
    const own = await startTestServer({ METRICS_PORT: String(port), METRICS_TOKEN: TOKEN });
    try {
      const at = `http://127.0.0.1:${port}/metrics`;
      expect((await scrape(at)).status).toBe(401);
      const res = await scrape(at, `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      expect(parseExposition(await res.text()).families.get('gigmarket_http_requests_total')).toBe('counter');
      expect((await scrape(`http://127.0.0.1:${port}/api/health`)).status).toBe(404);
      expect((await scrape(`${own.url}/metrics`, `Bearer ${TOKEN}`)).status).toBe(404);
    } finally {
      await own.close();
    }
    // Without a token, the port answers anyone on this machine: it listens on loopback only.
    const open = await startTestServer({ METRICS_PORT: String(port) });
    try {
      expect((await scrape(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('listens on loopback whatever HOST is, and beyond it only behind the token', () => {
    const tokenless = { HOST: '0.0.0.0', METRICS_PORT: '9464' };
    expect(loadConfig(tokenless).metrics).toEqual({ port: 9464, host: '127.0.0.1', token: undefined });
    for (const host of ['0.0.0.0', '::', '10.0.0.5']) {
      expect(() => loadConfig({ ...tokenless, METRICS_HOST: host })).toThrow(
        `METRICS_HOST (${host}) is not this machine and METRICS_TOKEN is not set: /metrics on METRICS_PORT would answer anyone who reaches it`,
      );
    }
    expect(loadConfig({ ...tokenless, METRICS_HOST: '0.0.0.0', METRICS_TOKEN: TOKEN }).metrics).toEqual({
      port: 9464,
      host: '0.0.0.0',
      token: TOKEN,
    });
    expect(loadConfig({ ...tokenless, METRICS_HOST: '::1' }).metrics?.host).toBe('::1');
  });

  it('is refused at start when METRICS_TOKEN is short or METRICS_PORT is not a port of its own', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN must be at least 16 characters/);
    expect(() => loadConfig({ METRICS_PORT: '0' })).toThrow(/^METRICS_PORT must be a port from 1 to 65535, got "0"$/);
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow(/^METRICS_PORT must differ from PORT/);
    expect(loadConfig({}).metrics).toBeUndefined(); // neither: no endpoint at all
  });
});
