// npm run bench:search [-- --gigs N] [-- --seed-only | --database NAME] — discovery search at 100,000 gigs (or N) on a server Postgres (DATABASE_URL).
// Creates a fresh database (dropped at the end), seeds gigs synthesised from the evaluation set's
// vocabulary, starts the server as its own process (`node dist/server.js`, as in production), and
// for each query shape measures the request over HTTP beside the same query as bare SQL through
// postgres.js from this process, in the same run and interleaved (one of each in turn, so that a
// burst of other load on the machine falls on both): p50, p95 and the ratio of the p95s, and
// "exact": how many of the first 20 results are those of ranking every match (no first phase).
// Then each shape again in pairs (one request, then the statement), and the discovery targets
// (docs/performance.md) counted over the shapes. Then EXPLAIN (ANALYZE) shows which indexes the
// query uses. Timings are figures to read, never assertions.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { SERVER_NODE_ARGS, quantile, serverEntry, stopServer, untilHealthy } from './bench-kit.ts';
import { seedGigs } from './bench-seed.ts';
import { PgDialect } from 'drizzle-orm/pg-core';
import { migrate, openDatabase, type Database } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';
import { planSearch, searchGigs, type SearchRequest } from '../src/search/service.ts';
import { isFreshnessOrdered, rankedRowOf, searchSql } from '../src/search/ranking-sql.ts';
import { candidateArms } from '../src/search/candidates-sql.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `--gigs N` (or BENCH_GIGS): how many gigs to seed; 100,000 by default. */
function gigsArg(): number {
  const i = process.argv.indexOf('--gigs');
  const raw = i >= 0 ? process.argv[i + 1] : (process.env.BENCH_GIGS ?? '100000');
  const n = Number(String(raw).replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--gigs needs a positive whole number, got "${raw}"`);
    process.exit(2);
  }
  return n;
}
const GIGS = gigsArg();
/** `--seed-only`: seed, keep the database for experiments (as BENCH_KEEP does) and time nothing. */
const SEED_ONLY = process.argv.includes('--seed-only');
/**
 * `--database NAME`: measure on a database that an earlier `--seed-only` kept (same DATABASE_URL
 * server), without seeding or dropping it: a seeding at 1,000,000 gigs takes minutes, and the
 * timing can then wait for a quiet machine.
 */
const REUSE = (() => {
  const i = process.argv.indexOf('--database');
  if (i < 0) return undefined;
  const raw = process.argv[i + 1] ?? '';
  if (!/^gm_bench_[0-9a-f]+$/.test(raw)) {
    console.error(`--database takes the name a --seed-only run printed (gm_bench_...), got "${raw}"`);
    process.exit(2);
  }
  return raw;
})();
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const MIN_RUNS = 60;
const SHAPE_BUDGET_MS = 6000;
const BLOCK = 10;
const BLOCK_WARMUP = 2;
const WARMUP = 8;
/** The paired phase: at least this many pairs, more while its budget lasts. */
const MIN_PAIRS = 60;
const PAIRS_BUDGET_MS = 2500;

interface Shape {
  name: string;
  query: Record<string, string | number>;
}

const SHAPES: Shape[] = [
  { name: 'text, one common word', query: { q: 'api' } },
  { name: 'text, one rare word', query: { q: 'godot' } },
  { name: 'text, two words', query: { q: 'react native' } },
  { name: 'text, natural language', query: { q: 'need someone to set up kubernetes autoscaling on aws' } },
  {
    name: 'text, long paragraph',
    query: {
      q: 'We are a healthcare startup and need a native iOS app written in Swift with SwiftUI. The app syncs with HealthKit, shows trends in charts, and must pass App Store review. Experience with HIPAA is a plus.',
    },
  },
  { name: 'text, stop words only', query: { q: 'the of and' } },
  { name: 'tags only', query: { tags: 'python' } },
  { name: 'tags only, two', query: { tags: 'python,django' } },
  { name: 'filters only: type', query: { compensation_type: 'hourly' } },
  { name: 'filters only: currency + sources', query: { currency: 'EUR', sources: 'remoteok,weworkremotely' } },
  { name: 'filters only: min pay', query: { min_compensation_cents: 15000 } },
  { name: 'text + tags + type', query: { q: 'rust', tags: 'rust', compensation_type: 'bounty' } },
  { name: 'text + min pay + type', query: { q: 'python developer', min_compensation_cents: 8000, compensation_type: 'hourly' } },
  { name: 'no parameters', query: {} },
];

function requestOf(query: Record<string, string | number>): SearchRequest {
  const list = (v: unknown) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
  return {
    q: query.q as string | undefined,
    tags: list(query.tags),
    sources: list(query.sources),
    minCompensationCents: query.min_compensation_cents as number | undefined,
    compensationType: query.compensation_type as never,
    currency: query.currency as string | undefined,
    limit: 20,
  };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) out.push(await timed(fn));
  return out;
}

/** One untimed run of each in turn, n times. */
async function warmUpBoth(a: () => Promise<unknown>, b: () => Promise<unknown>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await a();
    await b();
  }
}

/** Whether to go on after `done` timed runs: at least `min`, at most RUNS, more while `budgetMs` lasts (from this call). */
function whileBudget(min: number, budgetMs: number): (done: number) => boolean {
  const started = Date.now();
  return (done) => done < RUNS && (done < min || Date.now() - started < budgetMs);
}

/**
 * Both, in alternating blocks (which goes first alternates too), so that a burst of other load on
 * the machine falls on both: each block starts with BLOCK_WARMUP untimed runs (the switch from one
 * to the other leaves caches and the other process cold), then BLOCK timed runs. At least
 * MIN_RUNS runs each, and up to RUNS while the shape's time budget lasts.
 */
async function timeInterleaved(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  await warmUpBoth(a, b, WARMUP);
  const as: number[] = [];
  const bs: number[] = [];
  const more = whileBudget(MIN_RUNS, SHAPE_BUDGET_MS);
  const block = async (fn: () => Promise<unknown>, into: number[]) => {
    for (let i = 0; i < BLOCK_WARMUP; i++) await fn();
    for (let i = 0; i < BLOCK; i++) into.push(await timed(fn));
  };
  for (let round = 0; more(as.length); round++) {
    if (round % 2) {
      await block(a, as);
      await block(b, bs);
    } else {
      await block(b, bs);
      await block(a, as);
    }
  }
  return [as, bs];
}

/**
 * Each request followed by one statement, both timed: the statement then meets the machine as the
 * server's own does, with the server's and the client's work just run on the same two cores. Run
 * back to back in a block, it has the CPU's caches to itself between runs: timed inside the
 * server, the very same statement took longer there (docs/performance.md). The pairs show whether
 * the gap is that.
 */
async function timePaired(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  await warmUpBoth(a, b, BLOCK_WARMUP);
  const as: number[] = [];
  const bs: number[] = [];
  const more = whileBudget(MIN_PAIRS, PAIRS_BUDGET_MS);
  while (more(as.length)) {
    as.push(await timed(a));
    bs.push(await timed(b));
  }
  return [as, bs];
}

/** Which discovery targets (docs/performance.md) one shape meets; counted over the shapes at the end. */
interface Verdict {
  p95UnderLimit: boolean;
  p50Gap: boolean;
  pairedP50Gap: boolean;
  p95Overhead: boolean;
}

/**
 * The HTTP client: node:http over one kept-alive connection, the counterpart of postgres.js on the
 * SQL side (fetch's WHATWG layer alone added a measurable share of the gap being measured).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function httpGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The server as production runs it, in its own process: `node dist/server.js` on the bench database. */
async function startServer(dbUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, serverEntry()], {
    cwd: ROOT,
    // Request logging off, as before (LOG_LEVEL=silent); no embeddings endpoint.
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: dbUrl,
      EMBEDDINGS_URL: '',
      // One key sends every request: the per-key limit would answer 429 within a shape.
      RATE_LIMIT: 'off',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await untilHealthy(child, port);
  return child;
}

async function main() {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.error('bench:search needs DATABASE_URL (a server Postgres; it creates and drops its own database)');
    process.exit(2);
  }
  const name = REUSE ?? `gm_bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  if (!REUSE) await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  // JIT off, as the server's connections have it (db/client.ts).
  const bare = postgres(dbUrl, { max: 1, onnotice: () => {}, connection: { jit: 'off' } });
  let server: ChildProcess | undefined;
  let database: Database | undefined;
  try {
    database = await openDatabase({ databaseUrl: dbUrl, max: 4 });
    await migrate(database);
    const owner = await createUserWithKey({ db: database.db }, 'Bench client');
    const searcher = await createUserWithKey({ db: database.db }, 'Bench searcher');

    // The gigs measured on: the seeded count, or the reused database's.
    let corpus = GIGS;
    if (REUSE) {
      const [counts] = await bare<
        { gigs: number; open: number }[]
      >`select count(*)::int as gigs, count(*) filter (where status = 'open')::int as open from gigs`;
      const { gigs, open } = counts!;
      console.log(`reusing ${name}: ${gigs.toLocaleString('en-US')} gigs (${open.toLocaleString('en-US')} open)`);
      corpus = gigs;
    } else {
      const seeded = Date.now();
      const loader = postgres(dbUrl, { max: 2, onnotice: () => {} });
      const open = await seedGigs(loader, ROOT, GIGS, owner.userId).finally(() => loader.end());
      console.log(
        `seeded ${GIGS.toLocaleString('en-US')} gigs (${open.toLocaleString('en-US')} open) in ${((Date.now() - seeded) / 1000).toFixed(0)} s`,
      );
    }

    if (SEED_ONLY) return;
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    server = await startServer(dbUrl, port);
    const base = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${searcher.apiKey}` };
    const dialect = new PgDialect();
    const deps = { db: database.db, config: { embeddings: undefined } };

    // What any authenticated request costs here (HTTP, the key lookup): the floor under every
    // shape's HTTP time.
    const floor = await time(async () => {
      const res = await httpGet(`${base}/api/keys/verify`, headers);
      if (res.status !== 200) throw new Error(`GET /api/keys/verify: HTTP ${res.status}`);
    });
    console.log(
      `\nfloor: an authenticated GET /api/keys/verify takes p50 ${quantile(floor, 0.5).toFixed(1)} ms, p95 ${quantile(floor, 0.95).toFixed(1)} ms`,
    );
    console.log(`server in its own process; one request at a time, limit 20; per shape ${WARMUP} warm-up runs of each, then HTTP and SQL`);
    console.log(
      `in alternating blocks of ${BLOCK} timed runs after ${BLOCK_WARMUP} untimed ones, ${MIN_RUNS} to ${RUNS} runs each (as many as ${SHAPE_BUDGET_MS / 1000} s allow).`,
    );
    console.log(
      `then ${MIN_PAIRS} or more pairs (as many as ${PAIRS_BUDGET_MS / 1000} s allow) of one request and one statement: "paired HTTP, SQL p50".`,
    );
    console.log(
      `${'shape'.padEnd(36)} ${'results'.padStart(7)} ${'runs'.padStart(5)}  ${'HTTP p50'.padStart(8)} ${'p95'.padStart(6)}  ${'SQL p50'.padStart(8)} ${'p95'.padStart(6)}  ${'p95 ratio'.padStart(9)} ${'exact'.padStart(7)}  ${'paired HTTP, SQL p50'.padStart(20)}`,
    );
    const verdicts: Verdict[] = [];
    // The p95 targets: under 20 ms at 100,000 gigs, under 100 at 1,000,000.
    const p95Limit = corpus <= 100_000 ? 20 : 100;
    const explained: { name: string; text: string; params: unknown[]; walking: string[] }[] = [];
    for (const shape of SHAPES) {
      const qs = new URLSearchParams(Object.entries(shape.query).map(([k, v]) => [k, String(v)])).toString();
      let results = 0;
      const request = async () => {
        const res = await httpGet(`${base}/api/discovery/gigs?${qs}`, headers);
        if (res.status !== 200) throw new Error(`${shape.name}: HTTP ${res.status} ${res.body}`);
        results = (JSON.parse(res.body) as { data: unknown[] }).data.length;
      };
      const inProcess = process.env.BENCH_PROFILE ? await time(() => searchGigs(deps, searcher.userId, requestOf(shape.query))) : undefined;
      // The same query the API runs for this request (the search's one statement; the key lookup
      // is the floor's), as bare SQL through postgres.js, sent the way the server sends it: an
      // unnamed statement with its values as parameters, so planned each time with them.
      const { plan } = await planSearch(deps, searcher.userId, requestOf(shape.query));
      const query = dialect.sqlToQuery(searchSql(plan));
      // Which arms of the first phase walk the posted_at indexes or read open_gig_tags (candidates-sql.ts), for the EXPLAIN.
      const walking = isFreshnessOrdered(plan)
        ? []
        : candidateArms(plan)
            .filter((a) => a.read !== 'gin')
            .map((a) => `${a.match.kind} (${a.read})`);
      const bareSearch = () => bare.unsafe(query.sql, query.params as never[], { prepare: false });
      const [httpTimes, sqlTimes] = await timeInterleaved(request, bareSearch);
      const [pairedHttp, pairedSql] = await timePaired(request, bareSearch);
      // What the first phase costs in ranking: the page's overlap with the page of every match ranked.
      const firstIds = async (q: { sql: string; params: unknown[] }) =>
        (await bare.unsafe(q.sql, q.params as never[])).slice(0, 20).map((row) => rankedRowOf(row as never).id);
      const page = await firstIds(query);
      const exact = await firstIds(dialect.sqlToQuery(searchSql({ ...plan, exhaustive: true })));
      const agreement = `${page.filter((id) => exact.includes(id)).length}/${exact.length}`;
      explained.push({ name: shape.name, text: query.sql, params: query.params, walking });
      if (process.env.BENCH_KEEP)
        fs.writeFileSync(
          `/tmp/${name}-${explained.length}.json`,
          JSON.stringify({ name: shape.name, sql: query.sql, params: query.params }),
        );
      const h95 = quantile(httpTimes, 0.95);
      const s95 = quantile(sqlTimes, 0.95);
      const [h50, s50] = [quantile(httpTimes, 0.5), quantile(sqlTimes, 0.5)];
      const [ph50, ps50] = [quantile(pairedHttp, 0.5), quantile(pairedSql, 0.5)];
      verdicts.push({
        p95UnderLimit: h95 < p95Limit,
        p50Gap: h50 <= s50 + 1,
        pairedP50Gap: ph50 <= ps50 + 1,
        p95Overhead: h95 <= Math.max(1.5 * s95, s95 + 2),
      });
      const paired = `${ph50.toFixed(1)}, ${ps50.toFixed(1)}`;
      console.log(
        `${shape.name.padEnd(36)} ${String(results).padStart(7)} ${String(httpTimes.length).padStart(5)}  ${h50.toFixed(1).padStart(8)} ${h95.toFixed(1).padStart(6)}  ${s50.toFixed(1).padStart(8)} ${s95.toFixed(1).padStart(6)}  ${(h95 / s95).toFixed(2).padStart(8)}x ${agreement.padStart(7)}  ${paired.padStart(20)}${inProcess ? `  in-process p50 ${quantile(inProcess, 0.5).toFixed(1)} p95 ${quantile(inProcess, 0.95).toFixed(1)}` : ''}`,
      );
    }

    const met = (key: keyof Verdict) => `${verdicts.filter((v) => v[key]).length} of ${verdicts.length} shapes`;
    console.log(`\nHTTP p95 < ${p95Limit} ms: ${met('p95UnderLimit')}`);
    console.log(`HTTP p95 ≤ max(1.5x, +2 ms) of the SQL's p95: ${met('p95Overhead')}`);
    console.log(`HTTP p50 ≤ SQL p50 + 1 ms: ${met('p50Gap')}; in the pairs: ${met('pairedP50Gap')}`);

    console.log('\nEXPLAIN (ANALYZE) — the index nodes of each plan:');
    for (const e of explained) {
      const plan = await bare.unsafe(`explain (analyze, costs off) ${e.text}`, e.params as never[]);
      const lines = plan.map((r) => String((r as Record<string, unknown>)['QUERY PLAN']));
      const indexes = lines.filter((l) => /Index|Bitmap|Seq Scan|Function Scan/.test(l)).map((l) => l.trim().replace(/\s*\(actual.*$/, ''));
      const total = lines.filter((l) => /^(Planning|Execution) Time/.test(l)).join(', ');
      console.log(
        `- ${e.name}${e.walking.length ? ` (not through GIN: ${e.walking.join(', ')})` : ''}: ${total}\n    ${[...new Set(indexes)].join('\n    ')}`,
      );
    }
  } finally {
    if (server) await stopServer(server).catch(() => {});
    agent.destroy();
    await database?.close().catch(() => {});
    await bare.end();
    if (process.env.BENCH_KEEP || SEED_ONLY || REUSE) console.log(`\nkept database ${name}; drop it when done`);
    else await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

await main();
