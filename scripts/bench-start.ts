// npm run bench:start — cold start and memory. Cold start: from spawning `node src/server.ts` on an
// existing embedded database (PGlite under a DATA_DIR made and migrated by a first start) to its
// first 200 from /api/health, BENCH_STARTS times, beside the baseline in the same run: a process
// that only opens the same PGlite directory and answers /api/health with a bare Fastify
// (scripts/bench-start-bare.ts). Memory: the server's resident set once healthy, 3 s later, and after
// BENCH_REQUESTS authenticated reads (GET /api/gigs, GET /api/gigs/{id}, GET /api/profile/me),
// read from /proc. Figures to read, never assertions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_ENV, SERVER_NODE_ARGS, freePort, quantile, startServer, stopServer, untilHealthy } from './bench-kit.ts';
import { migrate, openDatabase } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

/** Resident set of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function timeToHealthy(start: (port: number) => ChildProcess): Promise<{ ms: number; child: ChildProcess; port: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = start(port);
  await untilHealthy(child, port);
  return { ms: performance.now() - started, child, port };
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

    const server = (port: number) =>
      spawn(process.execPath, [...SERVER_NODE_ARGS, path.join(ROOT, 'src/server.ts')], {
        cwd: ROOT,
        env: {
          ...SERVER_ENV,
          ...process.env,
          ...env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          HOST: '127.0.0.1',
          PORT: String(port),
          EMBEDDINGS_URL: '',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    const bare = (port: number) =>
      spawn(process.execPath, [path.join(ROOT, 'scripts/bench-start-bare.ts')], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    // A first start of each: the server's spec cache and the OS's file cache are warm, as on any restart.
    for (const start of [server, bare]) await stopServer((await timeToHealthy(start)).child);

    const times = { server: [] as number[], bare: [] as number[] };
    const rss = { server: 0, bare: 0 };
    for (let i = 0; i < STARTS; i++) {
      for (const [name, start] of [
        ['server', server],
        ['bare', bare],
      ] as const) {
        const run = await timeToHealthy(start);
        times[name].push(run.ms);
        rss[name] = rssMb(run.child.pid!);
        await stopServer(run.child);
      }
    }
    const median = (xs: number[]) => quantile(xs, 0.5);
    console.log(`cold start to a healthy /api/health on an existing PGlite database, ${STARTS} starts each (median, min):`);
    console.log(
      `  server   ${median(times.server).toFixed(0).padStart(6)} ms  ${Math.min(...times.server)
        .toFixed(0)
        .padStart(6)} ms  (target < 3000 ms)`,
    );
    console.log(
      `  bare     ${median(times.bare).toFixed(0).padStart(6)} ms  ${Math.min(...times.bare)
        .toFixed(0)
        .padStart(6)} ms  (PGlite open + Fastify)`,
    );
    console.log(`  server / bare: ${(median(times.server) / median(times.bare)).toFixed(2)}x`);

    // Memory: healthy, then after a load of reads.
    const port = await freePort();
    const child = await startServer(env, port, { stdout: 'ignore' });
    try {
      const base = `http://127.0.0.1:${port}`;
      const auth = { authorization: `Bearer ${user.apiKey}` };
      const healthy = rssMb(child.pid!);
      // V8 is still compiling PGlite's WebAssembly in the background when the first 200 arrives.
      await new Promise((r) => setTimeout(r, 3000));
      const settled = rssMb(child.pid!);
      const created = await fetch(`${base}/api/gigs`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Build a Rust CLI', tags: ['rust'] }),
      });
      const gigId = ((await created.json()) as { id: string }).id;
      const paths = ['/api/gigs', `/api/gigs/${gigId}`, '/api/profile/me'];
      for (let i = 0; i < REQUESTS; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, j) =>
            (await fetch(`${base}${paths[(i + j) % paths.length]}`, { headers: auth })).arrayBuffer(),
          ),
        );
      }
      console.log(
        `\nresident set: ${healthy.toFixed(0)} MB once healthy, ${settled.toFixed(0)} MB 3 s later, ${rssMb(child.pid!).toFixed(0)} MB after ${REQUESTS} reads (target < 250 MB); the bare process: ${rss.bare.toFixed(0)} MB once healthy`,
      );
    } finally {
      await stopServer(child);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
