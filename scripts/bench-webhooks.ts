// npm run bench:webhooks — webhook delivery, from an event's commit to its receipt, on the server as
// production runs it (`node dist/server.js`, its own process) on a fresh database: a server Postgres
// when DATABASE_URL is set (a database of its own, dropped at the end), else PGlite in a temporary
// DATA_DIR (removed at the end). A receiver on 127.0.0.1 answers 200 at once, verifies nothing and
// records when each webhook-id arrived.
//  1. Idle latency: one gig update at a time through the API, to a user with one endpoint; the
//     commit is when the API answered; receipt minus commit, p50 and p95.
//  2. Sustained: a user with MAX_ENDPOINTS_PER_USER endpoints (attempts to one endpoint at once are
//     capped by design, so throughput needs several), gig updates written as fast as WRITERS loops
//     can for SUSTAIN_S seconds; receipts per second after the warm-up, while writing and after.
//  3. Bare loop, the baseline in the same run: signed POSTs (signedHeaders) from this process to the
//     same receiver with fetch, as many loops as endpoints, for as long; deliveries per second.
// Then the stages of each delivery, read from the database (event written, relayed, job created,
// started, completed), to show where the time goes. Timings are figures to read, never assertions.
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { freePort, freshDatabase, progress, quantile, startServer, stopServer } from './bench-kit.ts';
import { migrate, type Database } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';
import { MAX_ENDPOINTS_PER_USER } from '../src/services/webhooks.ts';
import { newWebhookSecret, signedHeaders } from '../src/webhooks/signing.ts';
import { newId } from '../src/ids.ts';
import { DELIVERY_SLOTS, DELIVERY_SLOTS_PER_ENDPOINT } from '../jobs/webhook-delivery.ts';

const IDLE_EVENTS = Number(process.env.BENCH_IDLE_EVENTS ?? 50);
const SUSTAIN_S = Number(process.env.BENCH_SUSTAIN_S ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 2);
const ENDPOINTS = MAX_ENDPOINTS_PER_USER;
/** After the writers stop, how long the sustained phase waits for the backlog at most. */
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 15);
/** The longest one idle event is waited for. */
const IDLE_TIMEOUT_MS = 10_000;

/** A small progress bar on stderr (no dependency). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(0)} ms` : '-');

/** The receiver: 200 at once, nothing verified; the first arrival of each webhook-id, per path. */
interface Receipt {
  path: string;
  at: number; // Date.now()
}
function startReceiver() {
  const first = new Map<string, Receipt>();
  const arrivals: { path: string; at: number }[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const waiters = new Set<() => void>();
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const at = Date.now();
    const id = req.headers['webhook-id'];
    const p = req.url ?? '/';
    if (typeof id === 'string') {
      // One event goes to each endpoint (path) once: the same id twice at one path is a duplicate.
      if (seen.has(`${p} ${id}`)) duplicates++;
      seen.add(`${p} ${id}`);
      if (!first.has(id)) first.set(id, { path: p, at });
    }
    arrivals.push({ path: p, at });
    for (const w of waiters) w();
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  return {
    server,
    first,
    arrivals,
    duplicates: () => duplicates,
    /** Resolves at the next arrival (or after ms). */
    next: (ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      }),
    listen: () =>
      new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))),
  };
}

/** The API client: node:http over kept-alive connections. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
function api(
  base: string,
  key: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${url}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 300) return reject(new Error(`${method} ${url}: HTTP ${status} ${text.slice(0, 300)}`));
          resolve({ status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface Stage {
  id: string;
  event_created: Date;
  dispatched: Date | null;
  job_created: Date | null;
  job_started: Date | null;
  job_completed: Date | null;
}

/** Each event's relay and its first delivery job's times, from the database (read after the server stopped, for PGlite). */
async function stagesOf(database: Database, ids: string[]): Promise<Map<string, Stage>> {
  const text = `
    select e.id::text as id, e.created_at as event_created, e.dispatched_at as dispatched,
           min(j.created_on) as job_created, min(j.started_on) as job_started, min(j.completed_on) as job_completed
      from events e
      left join pgboss.job j on j.name = 'webhook-delivery' and j.data->>'event_id' = e.id::text
     where e.id = any($1::uuid[])
     group by e.id, e.created_at, e.dispatched_at`;
  const rows =
    database.kind === 'postgres'
      ? ((await database.sql.unsafe(text, [ids] as never[])) as unknown as Stage[])
      : (await database.pglite.query<Stage>(text, [ids])).rows;
  const out = new Map<string, Stage>();
  for (const r of rows) {
    const d = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
    out.set(r.id, {
      id: r.id,
      event_created: d(r.event_created)!,
      dispatched: d(r.dispatched),
      job_created: d(r.job_created),
      job_started: d(r.job_started),
      job_completed: d(r.job_completed),
    });
  }
  return out;
}

function stageTable(title: string, rows: { label: string; values: number[] }[]) {
  console.log(`\n${title}`);
  console.log(`  ${'stage'.padEnd(44)} ${'n'.padStart(6)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'max'.padStart(9)}`);
  for (const r of rows) {
    const v = r.values.filter(Number.isFinite);
    console.log(
      `  ${r.label.padEnd(44)} ${String(v.length).padStart(6)} ${fmt(quantile(v, 0.5)).padStart(9)} ${fmt(quantile(v, 0.95)).padStart(9)} ${fmt(v.length ? Math.max(...v) : Number.NaN).padStart(9)}`,
    );
  }
}

async function main() {
  const fresh = await freshDatabase('webhooks');
  const receiver = startReceiver();
  let server: ChildProcess | undefined;
  const benchStarted = Date.now();
  try {
    const receiverPort = await receiver.listen();
    const hook = (p: string) => `http://127.0.0.1:${receiverPort}${p}`;

    // Users and keys before the server starts (PGlite allows one process at a time).
    let database = await fresh.open();
    await migrate(database);
    const idleUser = await createUserWithKey({ db: database.db }, 'Bench idle');
    const busyUser = await createUserWithKey({ db: database.db }, 'Bench busy');
    await database.close();

    const port = await freePort();
    server = await startServer({ ...fresh.env, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' }, port);
    const base = `http://127.0.0.1:${port}`;
    console.log(`server: node dist/server.js on ${fresh.label}; receiver on 127.0.0.1:${receiverPort}`);

    const types = ['gig.updated'];
    await api(base, idleUser.apiKey, 'POST', '/api/webhooks', { url: hook('/idle'), event_types: types });
    for (let i = 0; i < ENDPOINTS; i++)
      await api(base, busyUser.apiKey, 'POST', '/api/webhooks', { url: hook(`/busy/${i}`), event_types: types });
    const gig = async (key: string, title: string) =>
      String((await api(base, key, 'POST', '/api/gigs', { title, status: 'open' })).json.id);
    const idleGig = await gig(idleUser.apiKey, 'Bench idle gig');
    const busyGigs = await Promise.all(Array.from({ length: WRITERS }, (_, i) => gig(busyUser.apiKey, `Bench busy gig ${i}`)));
    await sleep(1000); // the creations' events relayed; the queue idle

    // 1. Idle latency.
    const idle: { id: string; committed: number; received: number }[] = [];
    let missed = 0;
    const bar = progress('idle: one event at a time', IDLE_EVENTS);
    for (let i = 0; i < IDLE_EVENTS; i++) {
      const before = new Set(receiver.first.keys());
      await api(base, idleUser.apiKey, 'PATCH', `/api/gigs/${idleGig}`, { title: `Bench idle gig ${i}` });
      const committed = Date.now();
      const deadline = committed + IDLE_TIMEOUT_MS;
      let got: [string, Receipt] | undefined;
      while (!got && Date.now() < deadline) {
        got = [...receiver.first.entries()].find(([id, r]) => r.path === '/idle' && !before.has(id));
        if (!got) await receiver.next(deadline - Date.now());
      }
      if (got) idle.push({ id: got[0], committed, received: got[1].at });
      else missed++;
      bar(i + 1);
      // A pause of a random length, so that the events fall anywhere in the job poll's cycle.
      await sleep(100 + Math.random() * 400);
    }
    const idleLatency = idle.map((x) => x.received - x.committed);

    // 2. Sustained: WRITERS loops of gig updates for SUSTAIN_S, 20 endpoints receiving.
    const busyPaths = (p: string) => p.startsWith('/busy/');
    const arrivalsBefore = receiver.arrivals.length;
    const sustainStart = Date.now();
    const sustainEnd = sustainStart + SUSTAIN_S * 1000;
    let written = 0;
    const writeBar = progress('sustained: writing', SUSTAIN_S);
    const ticker = setInterval(() => {
      const received = receiver.arrivals.slice(arrivalsBefore).filter((a) => busyPaths(a.path)).length;
      writeBar(Math.floor((Date.now() - sustainStart) / 1000), `events ${written}, deliveries ${received}`);
    }, 1000);
    await Promise.all(
      busyGigs.map(async (id, w) => {
        for (let n = 0; Date.now() < sustainEnd; n++) {
          await api(base, busyUser.apiKey, 'PATCH', `/api/gigs/${id}`, { title: `Bench busy gig ${w} ${n}` });
          written++;
        }
      }),
    );
    clearInterval(ticker);
    writeBar(SUSTAIN_S);
    const expected = written * ENDPOINTS;
    const busyArrivals = () => receiver.arrivals.slice(arrivalsBefore).filter((a) => busyPaths(a.path));
    const drainDeadline = Date.now() + DRAIN_S * 1000;
    while (busyArrivals().length < expected && Date.now() < drainDeadline) await sleep(250);
    const drained = busyArrivals();
    const lastAt = drained.length ? drained[drained.length - 1]!.at : sustainEnd;
    const inWindow = drained.filter((a) => a.at >= sustainStart + WARMUP_S * 1000 && a.at < sustainEnd).length;
    const sustainedRate = inWindow / (SUSTAIN_S - WARMUP_S);
    // After the writers stop, the backlog drains with the server doing nothing else.
    const afterWriting = drained.filter((a) => a.at >= sustainEnd).length;
    const drainRate = afterWriting && lastAt > sustainEnd ? afterWriting / ((lastAt - sustainEnd) / 1000) : Number.NaN;
    const perSecond: number[] = [];
    for (let s = 0; s < Math.ceil((Math.max(lastAt, sustainEnd) - sustainStart) / 1000); s++)
      perSecond.push(drained.filter((a) => a.at >= sustainStart + s * 1000 && a.at < sustainStart + (s + 1) * 1000).length);

    // 3. The bare loop: signed POSTs from this process, as many loops as endpoints, as long.
    const secret = newWebhookSecret();
    const sampleBody = JSON.stringify({
      id: newId(),
      type: 'gig.updated',
      created_at: new Date().toISOString(),
      data: { id: idleGig, title: 'Bench busy gig 0 0', status: 'open', tags: [], description: '' },
    });
    let bare = 0;
    const bareStart = Date.now();
    const bareEnd = bareStart + SUSTAIN_S * 1000;
    const bareBar = progress('bare loop: signed POSTs', SUSTAIN_S);
    const bareTicker = setInterval(() => bareBar(Math.floor((Date.now() - bareStart) / 1000), `posts ${bare}`), 1000);
    let bareInWindow = 0;
    await Promise.all(
      Array.from({ length: ENDPOINTS }, async (_, i) => {
        while (Date.now() < bareEnd) {
          const id = `bare_${newId()}`;
          const res = await fetch(hook(`/bare/${i}`), {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...signedHeaders({ id, timestamp: new Date(), body: sampleBody, secrets: [secret] }),
            },
            body: sampleBody,
          });
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`the receiver answered ${res.status}`);
          bare++;
          if (Date.now() >= bareStart + WARMUP_S * 1000 && Date.now() < bareEnd) bareInWindow++;
        }
      }),
    );
    clearInterval(bareTicker);
    bareBar(SUSTAIN_S);
    const bareRate = bareInWindow / (SUSTAIN_S - WARMUP_S);

    // Stop the server, then read each delivery's stages from the database.
    await stopServer(server);
    server = undefined;
    database = await fresh.open();
    const busyIds = [...receiver.first.entries()].filter(([, r]) => busyPaths(r.path)).map(([id]) => id);
    const stages = await stagesOf(database, [...idle.map((x) => x.id), ...busyIds]);
    const query = async <T>(text: string): Promise<T[]> =>
      database.kind === 'postgres' ? ((await database.sql.unsafe(text)) as unknown as T[]) : (await database.pglite.query<T>(text)).rows;
    const jobs = (
      await query<{ n: number; completed: number }>(
        `select count(*)::int as n, count(*) filter (where state = 'completed')::int as completed
           from pgboss.job where name = 'webhook-delivery'`,
      )
    )[0]!;
    // How long each delivery job of the sustained phase ran (started to completed).
    const runs = (
      await query<{ ms: number }>(
        `select (extract(epoch from completed_on - started_on) * 1000)::float8 as ms
           from pgboss.job where name = 'webhook-delivery' and state = 'completed' and started_on >= to_timestamp(${sustainStart / 1000})`,
      )
    ).map((r) => Number(r.ms));
    await database.close();

    // The report.
    const ms = (a: Date | null | undefined, b: Date | null | undefined) => (a && b ? b.getTime() - a.getTime() : Number.NaN);
    console.log(`\nwebhook delivery on ${fresh.label.replace(/ \(.*/, '')}, ${os.cpus().length} cores, ${new Date().toISOString()}`);
    console.log(`  ${'measure'.padEnd(52)} ${'value'.padStart(12)}   target`);
    const line = (label: string, value: string, target = '') => console.log(`  ${label.padEnd(52)} ${value.padStart(12)}   ${target}`);
    const p95 = quantile(idleLatency, 0.95);
    line(`idle: commit to receipt p50 (${idle.length} events, ${missed} missed)`, fmt(quantile(idleLatency, 0.5)));
    line('idle: commit to receipt p95', fmt(p95), `< 1000 ms: ${p95 < 1000 ? 'met' : 'NOT met'}`);
    line(`sustained: events written (${WRITERS} writers, ${SUSTAIN_S} s)`, String(written));
    line(`sustained: deliveries due (x ${ENDPOINTS} endpoints)`, String(expected));
    line(`sustained: received by the end of writing`, String(drained.filter((a) => a.at < sustainEnd).length));
    line(`sustained: received after ${DRAIN_S} s more at most`, String(drained.length));
    line(
      `sustained: deliveries/s (${WARMUP_S}-${SUSTAIN_S} s)`,
      sustainedRate.toFixed(1),
      `>= 500/s: ${sustainedRate >= 500 ? 'met' : 'NOT met'}`,
    );
    line(`after writing: backlog of ${afterWriting} drained at, deliveries/s`, drainRate.toFixed(1));
    line(`bare loop: signed POSTs/s (${ENDPOINTS} loops, ${WARMUP_S}-${SUSTAIN_S} s)`, bareRate.toFixed(1));
    const ratio = sustainedRate / bareRate;
    line('ratio sustained / bare loop', `${(ratio * 100).toFixed(1)} %`, `>= 50 %: ${ratio >= 0.5 ? 'met' : 'NOT met'}`);
    line('duplicates received (a webhook-id twice at one endpoint)', String(receiver.duplicates()));
    line('delivery jobs in the queue table (completed)', `${jobs.n} (${jobs.completed})`);
    // How the delivery worker is set up, and how long each job of the sustained phase ran.
    line(`delivery worker: slots per process, per endpoint`, `${DELIVERY_SLOTS}, ${DELIVERY_SLOTS_PER_ENDPOINT}`);
    line(`sustained: one job's run (started -> completed) p50, p95`, `${fmt(quantile(runs, 0.5))}, ${fmt(quantile(runs, 0.95))}`);
    console.log(`  deliveries received per second of the sustained phase: ${perSecond.join(' ')}`);

    const idleStages = idle.map((x) => ({ x, s: stages.get(x.id) }));
    stageTable('idle: where the time goes (per event; event row and job times are the database clock, same machine)', [
      { label: 'API answered -> receipt (the latency above)', values: idleLatency },
      { label: 'event row written -> relayed (dispatched_at)', values: idleStages.map(({ s }) => ms(s?.event_created, s?.dispatched)) },
      { label: 'event row written -> job created', values: idleStages.map(({ s }) => ms(s?.event_created, s?.job_created)) },
      { label: 'job created -> job started (queue wait, poll)', values: idleStages.map(({ s }) => ms(s?.job_created, s?.job_started)) },
      {
        label: 'job started -> receipt',
        values: idleStages.map(({ x, s }) => (s?.job_started ? x.received - s.job_started.getTime() : Number.NaN)),
      },
      {
        label: 'receipt -> job completed',
        values: idleStages.map(({ x, s }) => (s?.job_completed ? s.job_completed.getTime() - x.received : Number.NaN)),
      },
    ]);
    const busyStages = busyIds.map((id) => ({ r: receiver.first.get(id)!, s: stages.get(id) }));
    stageTable('sustained: where the time goes (per event, its first job of the 20)', [
      { label: 'event row written -> relayed', values: busyStages.map(({ s }) => ms(s?.event_created, s?.dispatched)) },
      { label: 'job created -> job started (queue wait)', values: busyStages.map(({ s }) => ms(s?.job_created, s?.job_started)) },
      {
        label: 'job started -> receipt',
        values: busyStages.map(({ r, s }) => (s?.job_started ? r.at - s.job_started.getTime() : Number.NaN)),
      },
      {
        label: 'receipt -> job completed',
        values: busyStages.map(({ r, s }) => (s?.job_completed ? s.job_completed.getTime() - r.at : Number.NaN)),
      },
    ]);
    console.log(`\nthe whole bench took ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
  } finally {
    if (server) await stopServer(server).catch(() => {});
    agent.destroy();
    receiver.server.closeAllConnections();
    await new Promise((r) => receiver.server.close(r));
    await fresh.drop();
  }
}

await main();
