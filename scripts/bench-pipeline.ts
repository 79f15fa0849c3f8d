// npm run bench:pipeline — the request pipeline against a bare route, in the same run. On a fresh
// database of the server Postgres (DATABASE_URL, required: the baseline reads it from a second
// process, which PGlite cannot share), the server as production runs it (`node dist/server.js`, its
// log at LOG_LEVEL, default info, written to /dev/null) serves an authenticated
// `GET /api/gigs/{id}`; a bare Fastify route (scripts/bench-pipeline-bare.ts, its own process)
// reads the same row with postgres.js. autocannon loads each in turn, alternating (which goes
// first alternates too), ROUNDS times: requests per second, the serving process's CPU time per
// request and its main thread's (Linux; the event loop, which decides the requests per second once
// it is saturated), p50 and p99 latency, errors and non-2xx answers, and the ratios of the pipeline
// to the bare route in each round; then each ratio's median and range over the rounds. On a small
// shared machine even the CPU time per request of one unchanged server moves a lot from one run
// of a few seconds to the next, so many short rounds and their median say more than a few long
// ones. Figures to read, never assertions.
//   BENCH_CONNECTIONS (50), BENCH_DURATION_S (4), BENCH_ROUNDS (6), BENCH_PATH (the gig read),
//   BENCH_CPU_PROF=1: the server and the bare route write CPU profiles (node --cpu-prof) into
//   ./profiles/ (the bare route's named bare-*.cpuprofile), to compare where each spends its time;
//   BENCH_NODE_ARGS: flags for the server's node (e.g. --max-semi-space-size=4).
// Last, bytes each process allocates per request over BENCH_ALLOC_REQUESTS (20,000) requests
// (scripts/bench-alloc-probe.ts): unlike CPU time, a figure that repeats from run to run here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, freshDatabase, median, startServer, stopServer, untilHealthy } from './bench-kit.ts';
import { ALLOC_PROBE, ALLOC_REQUESTS, allocatedPerRequest, CONNECTIONS, type Figures, load } from './bench-load.ts';
import { migrate } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const WARMUP_S = 2;

const row = (label: string, f: Figures) =>
  `${label.padEnd(10)} ${f.rps.toFixed(0).padStart(7)} req/s   ${f.cpuUs.toFixed(0).padStart(4)} µs CPU/req (main thread ${f.mainCpuUs.toFixed(0).padStart(4)})   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms   errors ${f.errors}   non-2xx ${f.non2xx}`;

async function main() {
  if (!process.env.DATABASE_URL) {
    console.error(
      'bench:pipeline compares with a bare route reading the same server Postgres from a second process: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test); the bench makes a database of its own there and drops it at the end.',
    );
    process.exit(2);
  }
  const fresh = await freshDatabase('pipeline');
  // Where the two processes write their allocation figures (scripts/bench-alloc-probe.ts).
  const allocDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-bench-alloc-'));
  let server: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  try {
    const database = await fresh.open();
    await migrate(database);
    const user = await createUserWithKey({ db: database.db }, 'Bench client');
    await database.close();

    const port = await freePort();
    const cpuProfile = (prefix: string) =>
      process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'profiles')}`, `--cpu-prof-name=${prefix}-\${pid}.cpuprofile`]
        : [];
    const nodeArgs = [...ALLOC_PROBE, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), ...cpuProfile('server')];
    server = await startServer({ ...fresh.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', BENCH_ALLOC_DIR: allocDir }, port, {
      nodeArgs,
      stdout: 'ignore',
    });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${user.apiKey}` };
    const created = await fetch(`${base}/api/gigs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Build a Rust CLI', description: 'A parser for our logs.', tags: ['rust', 'cli'], rate_cents: 8000 }),
    });
    if (created.status !== 201) throw new Error(`POST /api/gigs answered ${created.status}: ${await created.text()}`);
    const gigId = ((await created.json()) as { id: string }).id;

    const barePort = await freePort();
    bare = spawn(process.execPath, [...ALLOC_PROBE, ...cpuProfile('bare'), path.join(ROOT, 'scripts/bench-pipeline-bare.ts')], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: fresh.url, PORT: String(barePort), BENCH_ALLOC_DIR: allocDir },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await untilHealthy(bare, barePort);

    const appUrl = `${base}${process.env.BENCH_PATH ?? `/api/gigs/${gigId}`}`;
    const bareUrl = `http://127.0.0.1:${barePort}/bare/gigs/${gigId}`;
    console.log(`pipeline: GET ${appUrl.replace(base, '')} with an API key, node dist/server.js on ${fresh.label}`);
    console.log(`bare:     GET /bare/gigs/{id}, Fastify + postgres.js, same database`);
    console.log(`autocannon -c ${CONNECTIONS} -d ${DURATION_S}, alternating, ${ROUNDS} rounds (after ${WARMUP_S} s of warm-up each)\n`);
    await load(bareUrl, {}, undefined, WARMUP_S);
    await load(appUrl, auth, undefined, WARMUP_S);

    const ratios: { rps: number; p99: number; cpu: number; main: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Whichever runs second finds the machine as the first left it: take turns.
      let a: Figures;
      let b: Figures;
      if (round % 2) {
        b = await load(bareUrl, {}, bare.pid, DURATION_S);
        a = await load(appUrl, auth, server.pid, DURATION_S);
      } else {
        a = await load(appUrl, auth, server.pid, DURATION_S);
        b = await load(bareUrl, {}, bare.pid, DURATION_S);
      }
      console.log(`round ${round}`);
      console.log(row('  bare', b));
      console.log(row('  pipeline', a));
      const ratio = { rps: a.rps / b.rps, p99: a.p99 / Math.max(b.p99, 1), cpu: a.cpuUs / b.cpuUs, main: a.mainCpuUs / b.mainCpuUs };
      ratios.push(ratio);
      console.log(
        `  pipeline / bare: ${ratio.rps.toFixed(2)}x the requests per second, ${ratio.p99.toFixed(2)}x the p99, ${ratio.cpu.toFixed(2)}x the CPU per request (${ratio.main.toFixed(2)}x the main thread's)`,
      );
    }
    // The median and the range of a ratio over the rounds.
    const spread = (xs: number[]) => `${median(xs).toFixed(2)}x (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
    console.log(
      `\nmedian (range) over ${ROUNDS} rounds: ${spread(ratios.map((r) => r.rps))} the bare route's requests per second (target ≥ 0.75x), ${spread(ratios.map((r) => r.p99))} its p99 (target ≤ 1.5x), ${spread(ratios.map((r) => r.cpu))} its CPU per request, ${spread(ratios.map((r) => r.main))} its main thread's`,
    );
    const perRequest = {
      bare: await allocatedPerRequest(bare, bareUrl, {}, allocDir),
      pipeline: await allocatedPerRequest(server, appUrl, auth, allocDir),
    };
    console.log(
      `JavaScript heap allocated per request over ${ALLOC_REQUESTS.toLocaleString('en-US')} requests (-c 10): pipeline ${(perRequest.pipeline / 1024).toFixed(1)} KB, bare ${(perRequest.bare / 1024).toFixed(1)} KB: ${(perRequest.pipeline / perRequest.bare).toFixed(2)}x`,
    );
  } finally {
    fs.rmSync(allocDir, { recursive: true, force: true });
    if (bare) await stopServer(bare);
    if (server) await stopServer(server);
    await fresh.drop();
  }
}

await main();
