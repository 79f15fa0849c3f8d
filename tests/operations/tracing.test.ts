// Traces (src/tracing/), from a real `node dist/server.js` to a collector in this test: an OTLP/HTTP
// receiver that decodes the JSON the exporter sends. One write (a gig created, with the caller's
// own traceparent) is one trace: its request span, the handler's, the transactions and their
// statements (text, never values), and the span of the job that delivers the event's webhook,
// continued from the trace the event row kept. A request's span has its path without the query (a
// token in a link), and a caller's traceparent cannot switch sampling off. Without
// OTEL_EXPORTER_OTLP_ENDPOINT, no module of the SDK loads (@opentelemetry/api may: prom-client
// requires it). On PGlite in the embedded run, on Postgres in the server run.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import { closeServer, listenLocal } from '../fakes/local-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
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
import { EMBEDDED_RUN } from '../helpers/runs.ts';
import { startTracing } from '../../src/tracing/index.ts';

/** A span as the OTLP JSON encoding has it (ids in hex), with its attributes as a plain object. */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: unknown;
}

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };
const plainValue = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]));

/** A collector: every export POSTed to /v1/traces, as sent (for what must not be in it) and decoded. */
async function startOtlpReceiver() {
  const bodies: string[] = [];
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      bodies.push(text);
      for (const resourceSpans of JSON.parse(text).resourceSpans ?? []) {
        const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const s of scope.spans ?? []) {
            spans.push({ ...s, parentSpanId: s.parentSpanId ?? '', attributes: attributesOf(s.attributes), service });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const url = await listenLocal(server);
  return { url, bodies, spans, close: () => closeServer(server) };
}

const MODULE_REPORT = pathToFileURL(path.resolve(import.meta.dirname, '..', 'fixtures', 'otel-module-report.ts')).href;
const sdkModules = (server: ServerProcess) => [...server.output().matchAll(/opentelemetry module resolved: (\S+)/g)].map((m) => m[1]);

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  killRunningServers();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A server process on a database of its own, with a user who has an API key, and its client. */
async function serverWith(env: Record<string, string>) {
  const database: ProcessDatabase = await processDatabase();
  cleanups.push(database.drop);
  const [user] = await usersBeforeStart(database.env, 'Tracer');
  const server = await spawnServer({
    ...database.env,
    ...env,
    WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
    NODE_OPTIONS: `--import=${MODULE_REPORT}`,
  });
  await waitUntilHealthy(server);
  const api = createClient<paths>({ baseUrl: server.url, headers: { authorization: `Bearer ${user.apiKey}` } });
  api.use(specValidation);
  return { server, api, apiKey: user.apiKey };
}

/** An endpoint on the receiver, then a gig: resolves with the gig and its gig.created delivery. */
async function gigDelivered(api: ReturnType<typeof createClient<paths>>, hooks: WebhookReceiver, title: string, headers = {}) {
  const endpoint = await api.POST('/api/webhooks', { body: { url: `${hooks.url}/traced` } });
  expect(endpoint.response.status).toBe(201);
  const gig = await api.POST('/api/gigs', { body: { title, description: 'Traced end to end', tags: ['otel'], rate_cents: 5000 }, headers });
  expect(gig.response.status).toBe(201);
  const delivery = await vi.waitFor(
    () => {
      const found = hooks.received.find((r) => JSON.parse(r.body).type === 'gig.created');
      if (!found) throw new Error('gig.created not delivered yet');
      return found;
    },
    { timeout: 30_000, interval: 50 },
  );
  return { gig: gig.data!, delivery };
}

/** A GET sent as given, its path not parsed as a URL (a fragment stays in it, as a raw client may send one). */
function rawGet(base: string, pathAndQuery: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname, port, path: pathAndQuery, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

/** The spans of one trace, once one of them passes `found` (spans leave in batches, every 5 s). */
async function spansOnceExported(otlp: Awaited<ReturnType<typeof startOtlpReceiver>>, traceId: string, found: (s: Span) => boolean) {
  await vi.waitFor(
    () => {
      if (!otlp.spans.some((s) => s.traceId === traceId && found(s))) throw new Error(`not exported yet in ${traceId}`);
    },
    { timeout: 30_000, interval: 100 },
  );
  return otlp.spans.filter((s) => s.traceId === traceId);
}

describe('traces', () => {
  let traced: { otlp: Awaited<ReturnType<typeof startOtlpReceiver>>; hooks: WebhookReceiver } & Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    const otlp = await startOtlpReceiver();
    cleanups.push(otlp.close);
    const hooks = await startWebhookReceiver();
    cleanups.push(hooks.close);
    const started = await serverWith({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'gigmarket-under-test' });
    traced = { otlp, hooks, ...started };
  });

  it('a write is one trace, from its request through its SQL to the job that delivers its webhook', async () => {
    const { otlp, hooks, server, api, apiKey } = traced;

    // The caller's own trace: the server continues it (W3C Trace Context).
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const title = `Traced gig ${randomBytes(6).toString('hex')}`;
    const { gig } = await gigDelivered(api, hooks, title, { traceparent: `00-${callerTrace}-${callerSpan}-01` });

    const spans = await spansOnceExported(otlp, callerTrace, (s) => s.name === 'process webhook-delivery');
    const job = spans.find((s) => s.name === 'process webhook-delivery')!;
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const ancestors = (s: Span): Span[] => {
      const parent = byId.get(s.parentSpanId);
      return parent ? [parent, ...ancestors(parent)] : [];
    };

    // The request: a server span, the child of the caller's.
    const request = spans.find((s) => s.kind === SERVER && s.name === 'POST /api/gigs');
    expect(request).toBeDefined();
    expect(request!.parentSpanId).toBe(callerSpan);
    expect(request!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/gigs',
      'http.response.status_code': 201,
    });
    expect(request!.service).toBe('gigmarket-under-test');
    expect(request!.attributes['gigmarket.operation_id']).toBe('createGig');
    const handler = spans.find((s) => s.parentSpanId === request!.spanId && s.name === 'handler createGig');
    expect(handler).toBeDefined();

    // Its SQL: statements, and the transaction that wrote the gig and its event, under the request.
    const statements = spans.filter((s) => s.kind === CLIENT && s.attributes['db.query.text'] !== undefined);
    for (const s of statements) expect(ancestors(s)).toContain(request);
    const insertGig = statements.find((s) => /^insert into "gigs"/i.test(String(s.attributes['db.query.text'])));
    const insertEvent = statements.find((s) => /^insert into "events"/i.test(String(s.attributes['db.query.text'])));
    expect(insertGig?.name).toBe('INSERT gigs');
    expect(insertGig!.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT' });
    const transaction = byId.get(insertGig!.parentSpanId)!;
    expect(transaction.name).toBe('transaction');
    expect(ancestors(transaction)).toContain(handler);
    expect(insertEvent!.parentSpanId).toBe(transaction.spanId);

    // The delivery: a consumer span in the same trace, continued from the span that wrote the event
    // (the transaction), with its own statements (the endpoint and event read, the attempt recorded).
    expect(job.kind).toBe(CONSUMER);
    expect(job.parentSpanId).toBe(transaction.spanId);
    // The relay that enqueued it runs apart from any request: none of its statements is in the trace.
    expect(statements.filter((s) => /^update "events" set "dispatched_at"/.test(String(s.attributes['db.query.text'])))).toEqual([]);
    expect(job.attributes).toMatchObject({ 'messaging.system': 'pg-boss', 'messaging.destination.name': 'webhook-delivery' });
    const jobStatements = spans.filter((s) => s.kind === CLIENT && ancestors(s).includes(job));
    expect(jobStatements.map((s) => s.name)).toEqual(expect.arrayContaining(['SELECT webhook_endpoints', 'SELECT events']));

    // Statement text only: neither the gig's title nor the caller's key is in anything sent, and
    // no statement outside a trace (the relay's polls, the workers' fetches) is a trace of its own.
    for (const body of otlp.bodies) {
      expect(body).not.toContain(title);
      expect(body).not.toContain(apiKey);
    }
    expect(gig.title).toBe(title);
    expect(otlp.spans.filter((s) => s.attributes['db.query.text'] !== undefined && !s.parentSpanId)).toEqual([]);

    // The SDK is loaded in this process, as the module report shows.
    expect(sdkModules(server)).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace', '@fastify/otel']));
  });

  it("records a request's path without its query or fragment, and samples it whatever the caller's traceparent says", async () => {
    const { otlp, server } = traced;
    // A sandbox onboarding link carries its token in the query, as GitHub's callback does its code
    // and state; the caller's traceparent flags its trace "not sampled" (flags 00).
    const secret = randomBytes(12).toString('hex');
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const link = `/sandbox/connect/acct_traced?token=${secret}&return_url=https%3A%2F%2Fx.test%2F#${secret}-fragment`;
    const status = await rawGet(server.url, link, { traceparent: `00-${callerTrace}-${callerSpan}-00` });
    expect(status).toBe(403);

    // Sampled all the same, still in the caller's trace, the child of its span.
    const spans = await spansOnceExported(otlp, callerTrace, (s) => s.kind === SERVER);
    const request = spans.find((s) => s.kind === SERVER)!;
    expect(request.name).toBe('GET /sandbox/connect/:accountId');
    expect(request.parentSpanId).toBe(callerSpan);
    expect(request.attributes).toMatchObject({ 'url.path': '/sandbox/connect/acct_traced', 'http.response.status_code': 403 });
    for (const body of otlp.bodies) expect(body).not.toContain(secret);
  });

  // The database does not matter here: the embedded run only (tests/helpers/runs.ts).
  it.runIf(EMBEDDED_RUN)('starts once in a process, however many start it at the same time', async () => {
    const config = { otel: { endpoint: traced.otlp.url, serviceName: 'gigmarket-under-test' } };
    const [first, second] = await Promise.all([startTracing(config), startTracing(config)]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(await startTracing(config)).toBe(first);
  });
});

describe('traces off', () => {
  // The database does not matter here: the embedded run only (tests/helpers/runs.ts).
  it.runIf(EMBEDDED_RUN)('without OTEL_EXPORTER_OTLP_ENDPOINT, the same write loads no module of the SDK', async () => {
    const hooks = await startWebhookReceiver();
    cleanups.push(hooks.close);
    const { server, api } = await serverWith({});
    await gigDelivered(api, hooks, 'Untraced gig');
    expect(sdkModules(server)).toEqual([]);
  });
});
