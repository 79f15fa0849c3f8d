// npm run bench:start — cold start and memory, each beside its baseline in the same run: a process
// that only opens the same PGlite directory and answers /api/health with a bare Fastify
// (scripts/bench-start-bare.ts), started with the same node flags (npm start's) and environment as the server.
// Both run bundled, as `npm start` runs the server (dist/server.js; the bare process bundled the same
// way into dist/bench-start-bare.js), or both from source with BENCH_FROM_SOURCE=1.
// Cold start: from spawning `node dist/server.js` on an existing embedded database (PGlite under a
// DATA_DIR made and migrated by a first start) to its first 200 from /api/health, BENCH_STARTS
// times (0 skips it). First start: the same on an empty DATA_DIR, where the server loads the
// prepared template (dist/pglite-template.tar.gz) and the bare process runs PGlite's initdb.
// Memory, BENCH_MEMORY_RUNS times (0 skips it): the resident set (VmRSS from /proc) once healthy,
// 3 s later, then 1 s, 15 s and 30 s after a load of BENCH_REQUESTS reads (autocannon, 10
// connections: GET /api/gigs, GET /api/gigs/{id}, GET /api/profile/me, authenticated; the bare
// process gets as many /api/health). Figures to read, never assertions.
// An operator's settings (NODE_OPTIONS, MALLOC_ARENA_MAX, ...) set for this command reach both
// processes, as they would reach `npm start`.
//   BENCH_SERVER_STDOUT=1: the server's log to this terminal (e.g. with BENCH_NODE_ARGS=--trace-gc,
//   or BENCH_LOG_LEVEL=info); dropped otherwise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SERVER_NODE_ARGS, freePort, median, serverEntry, stopServer, untilHealthy } from './bench-kit.ts';
import { bundle } from './server-bundle.ts';
import { migrate, openDatabase } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const MEMORY_RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 3);
/** BENCH_NODE_ARGS: node flags for the server only, after npm start's (e.g. --max-semi-space-size=16). */
const SERVER_ARGS = [...SERVER_NODE_ARGS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === '1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident set of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

type Start = (port: number, dataDir?: string) => ChildProcess;

async function timeToHealthy(start: Start, dataDir?: string): Promise<{ ms: number; child: ChildProcess; port: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = start(port, dataDir);
  await untilHealthy(child, port);
  return { ms: performance.now() - started, child, port };
}

interface Resident {
  healthy: number;
  settled: number;
  loaded: number;
  /** 15 s after the load. */
  quiet: number;
  rested: number;
}

/** Starts the process, loads it with REQUESTS reads cycling over the paths, and reads its resident set on the way. */
async function residentUnderLoad(start: Start, paths: string[], headers: Record<string, string>): Promise<Resident> {
  const { child, port } = await timeToHealthy(start);
  try {
    const healthy = rssMb(child.pid!);
    // V8 is still compiling PGlite's WebAssembly in the background when the first 200 arrives.
    await sleep(3000);
    const settled = rssMb(child.pid!);
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 10,
      amount: REQUESTS,
      headers,
      requests: paths.map((p) => ({ path: p })),
    });
    if (result.non2xx || result.errors) console.error(`${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
    await sleep(1000);
    const loaded = rssMb(child.pid!);
    await sleep(14_000);
    const quiet = rssMb(child.pid!);
    await sleep(15_000);
    return { healthy, settled, loaded, quiet, rested: rssMb(child.pid!) };
  } finally {
    await stopServer(child);
  }
}

/** A gig to read: posted through a server of its own (then stopped), as a client would. */
async function aGig(server: Start, apiKey: string): Promise<string> {
  const { child, port } = await timeToHealthy(server);
  try {
    const created = await fetch(`http://127.0.0.1:${port}/api/gigs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Build a Rust CLI', tags: ['rust'] }),
    });
    return ((await created.json()) as { id: string }).id;
  } finally {
    await stopServer(child);
  }
}

/**
 * Starts the server and the bare process in turn, STARTS times each, until each answers healthy,
 * and prints the medians, the fastest and the ratio. `fresh`: each start on a new, empty DATA_DIR
 * (the first start); else on the existing one (a later start).
 */
async function startTimes(server: Start, bare: Start, how: { fresh: boolean; title: string; server: string; bare: string }) {
  const times = { server: [] as number[], bare: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const [name, start] of [
      ['server', server],
      ['bare', bare],
    ] as const) {
      const empty = how.fresh ? fs.mkdtempSync(path.join(os.tmpdir(), 'gm-bench-first-')) : undefined;
      try {
        const run = await timeToHealthy(start, empty && path.join(empty, 'data'));
        times[name].push(run.ms);
        await stopServer(run.child);
      } finally {
        if (empty) fs.rmSync(empty, { recursive: true, force: true });
      }
    }
  }
  const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`;
  console.log(`${how.title}, ${STARTS} starts each (median, min):`);
  console.log(`  server   ${ms(median(times.server))}  ${ms(Math.min(...times.server))}  (${how.server})`);
  console.log(`  bare     ${ms(median(times.bare))}  ${ms(Math.min(...times.bare))}  (${how.bare})`);
  console.log(`  server / bare: ${(median(times.server) / median(times.bare)).toFixed(2)}x`);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-bench-start-'));
  const dataDir = path.join(dir, 'data');
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  try {
    const database = await openDatabase({ dataDir });
    await migrate(database);
    const user = await createUserWithKey({ db: database.db }, 'Bench start');
    await database.close();

    const serverScript = FROM_SOURCE ? path.join(ROOT, 'src/server.ts') : serverEntry();
    const bareScript = path.join(ROOT, FROM_SOURCE ? 'scripts/bench-start-bare.ts' : 'dist/bench-start-bare.js');
    if (!FROM_SOURCE) await bundle('scripts/bench-start-bare.ts', bareScript);
    console.log(`server: node ${path.relative(ROOT, serverScript)}; bare: node ${path.relative(ROOT, bareScript)}\n`);
    const server: Start = (port, dir = dataDir) =>
      spawn(process.execPath, [...SERVER_ARGS, serverScript], {
        cwd: ROOT,
        env: {
          ...process.env,
          ...env,
          DATA_DIR: dir,
          NODE_ENV: 'test',
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
          HOST: '127.0.0.1',
          PORT: String(port),
          EMBEDDINGS_URL: '',
          // The load is 20,000 reads from one address and one key.
          RATE_LIMIT_PER_MINUTE: '100000000',
          RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
        },
        stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'],
      });
    const bare: Start = (port, dir = dataDir) =>
      spawn(process.execPath, [...SERVER_NODE_ARGS, bareScript], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dir, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    // A first start of each: the server's spec cache and the OS's file cache are warm, as on any restart.
    for (const start of [server, bare]) await stopServer((await timeToHealthy(start)).child);
    if (STARTS > 0) {
      await startTimes(server, bare, {
        fresh: false,
        title: 'cold start to a healthy /api/health on an existing PGlite database',
        server: 'target < 3000 ms',
        bare: 'PGlite open + Fastify',
      });
      await startTimes(server, bare, {
        fresh: true,
        title: '\nfirst start to a healthy /api/health on an empty DATA_DIR',
        server: 'from the prepared template',
        bare: "PGlite's initdb + Fastify, no migrations",
      });
    }
    if (MEMORY_RUNS <= 0) return;

    // Memory: each run starts both processes afresh, so what start-up leaves behind is measured too.
    const gigId = await aGig(server, user.apiKey);
    const runs: { server: Resident; bare: Resident }[] = [];
    for (let i = 0; i < MEMORY_RUNS; i++) {
      const serverPaths = ['/api/gigs', `/api/gigs/${gigId}`, '/api/profile/me'];
      runs.push({
        server: await residentUnderLoad(server, serverPaths, { authorization: `Bearer ${user.apiKey}` }),
        bare: await residentUnderLoad(bare, ['/api/health'], {}),
      });
    }
    const mb = (x: number) => `${x.toFixed(0).padStart(4)} MB`;
    const line = (label: string, r: Resident) =>
      `  ${label.padEnd(8)} ${mb(r.healthy)}  ${mb(r.settled)}  ${mb(r.loaded)}  ${mb(r.quiet)}  ${mb(r.rested)}`;
    console.log(`\nresident set (VmRSS) on PGlite, ${MEMORY_RUNS} runs; ${REQUESTS} reads each (target < 250 MB after the load):`);
    console.log(`           healthy   3 s later  1 s after  15 s after  30 s after`);
    for (const [i, run] of runs.entries()) {
      console.log(line(`server ${i + 1}`, run.server));
      console.log(line(`bare ${i + 1}`, run.bare));
    }
    const med = (pick: (r: Resident) => number, who: 'server' | 'bare') => median(runs.map((r) => pick(r[who])));
    for (const who of ['server', 'bare'] as const) {
      console.log(
        `  median ${who.padEnd(6)}: ${mb(med((r) => r.settled, who))} 3 s after healthy, ${mb(med((r) => r.loaded, who))} 1 s after the load, ${mb(med((r) => r.quiet, who))} 15 s after, ${mb(med((r) => r.rested, who))} 30 s after`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
