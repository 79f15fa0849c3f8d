// npm run bench:ab -- <git worktree or checkout of the other version>: this checkout's server
// against another version's, side by side on one fresh database of the server Postgres
// (DATABASE_URL), each serving the authenticated gig read of bench:pipeline. autocannon loads them
// in turn over BENCH_ROUNDS (8) rounds of BENCH_DURATION_S (4) s, whichever goes first alternating,
// and prints each one's requests per second and CPU time per request with the medians and the
// ratio, then the heap each allocates per request (scripts/bench-alloc-probe.ts). For a change
// too small for bench:pipeline's noise to show: both servers see the same machine in each round.
// BENCH_REQUESTS: exactly that many requests per round instead of BENCH_DURATION_S;
// BENCH_CONNECTIONS (50): at 4, each request is nearly alone in its turn of the event loop, so
// the figure is what one request costs rather than what a batch of them shares. Besides the whole
// process's CPU it prints the main thread's (the event loop), which V8's and libuv's helper
// threads do not move.
// The other checkout needs its own node_modules (npm ci there). BENCH_NODE_ARGS: node flags for
// this checkout's server only (the same code on both sides then compares the flags). Figures to
// read, never assertions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, freshDatabase, median, startServer, stopServer } from './bench-kit.ts';
import { allocatedPerRequest, ALLOC_PROBE, load } from './bench-load.ts';
import { migrate } from '../db/client.ts';
import { createUserWithKey } from '../src/services/api-keys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 4);
const REQUESTS = process.env.BENCH_REQUESTS ? Number(process.env.BENCH_REQUESTS) : undefined;

async function main() {
  const other = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  if (!process.env.DATABASE_URL || !other || !fs.existsSync(path.join(other, 'src/server.ts'))) {
    console.error('usage: DATABASE_URL=postgres://… npm run bench:ab -- <checkout of the other version, with its node_modules>');
    process.exit(2);
  }
  const fresh = await freshDatabase('ab');
  const allocDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-bench-ab-'));
  const servers: { label: string; child?: ChildProcess; url: string }[] = [
    { label: 'this', url: '' },
    { label: path.basename(other), url: '' },
  ];
  try {
    const database = await fresh.open();
    await migrate(database);
    const user = await createUserWithKey({ db: database.db }, 'Bench client');
    await database.close();
    const auth = { authorization: `Bearer ${user.apiKey}` };
    for (const [i, server] of servers.entries()) {
      const port = await freePort();
      const env = { ...fresh.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', BENCH_ALLOC_DIR: allocDir };
      const flags = i === 0 ? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
      server.child = await startServer(env, port, { nodeArgs: [...ALLOC_PROBE, ...flags], stdout: 'ignore', root: i === 0 ? ROOT : other });
      server.url = `http://127.0.0.1:${port}`;
    }
    const created = await fetch(`${servers[0]!.url}/api/gigs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Build a Rust CLI', description: 'A parser for our logs.', tags: ['rust', 'cli'], rate_cents: 8000 }),
    });
    if (created.status !== 201) throw new Error(`POST /api/gigs answered ${created.status}: ${await created.text()}`);
    const gigPath = `/api/gigs/${((await created.json()) as { id: string }).id}`;
    console.log(`GET ${gigPath.replace(/[0-9a-f-]{36}/, '{id}')} with an API key: ${servers.map((s) => s.label).join(' against ')}`);
    for (const s of servers) await load(`${s.url}${gigPath}`, auth, undefined, 2);

    const figures = servers.map(() => ({ rps: [] as number[], cpu: [] as number[], main: [] as number[] }));
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? [0, 1] : [1, 0];
      for (const i of order) {
        const f = await load(`${servers[i]!.url}${gigPath}`, auth, servers[i]!.child!.pid, DURATION_S, REQUESTS);
        figures[i]!.rps.push(f.rps);
        figures[i]!.cpu.push(f.cpuUs);
        figures[i]!.main.push(f.mainCpuUs);
      }
      console.log(
        `round ${round}: ${servers.map((s, i) => `${s.label} ${figures[i]!.rps.at(-1)!.toFixed(0)} req/s ${figures[i]!.cpu.at(-1)!.toFixed(0)} µs CPU/req (main thread ${figures[i]!.main.at(-1)!.toFixed(0)})`).join('   ')}`,
      );
    }
    const [a, b] = figures.map((f) => ({ rps: median(f.rps), cpu: median(f.cpu), main: median(f.main) }));
    console.log(
      `\nmedians over ${ROUNDS} rounds: ${servers[0]!.label} ${a!.rps.toFixed(0)} req/s, ${a!.cpu.toFixed(0)} µs CPU/req (main thread ${a!.main.toFixed(1)}); ${servers[1]!.label} ${b!.rps.toFixed(0)} req/s, ${b!.cpu.toFixed(0)} µs CPU/req (main thread ${b!.main.toFixed(1)}): ${(a!.rps / b!.rps).toFixed(2)}x the requests per second, ${(a!.cpu / b!.cpu).toFixed(2)}x the CPU per request, ${(a!.main / b!.main).toFixed(3)}x the main thread's`,
    );
    const bytes: number[] = [];
    for (const s of servers) bytes.push(await allocatedPerRequest(s.child!, `${s.url}${gigPath}`, auth, allocDir));
    console.log(`heap allocated per request: ${servers.map((s, i) => `${s.label} ${(bytes[i]! / 1024).toFixed(1)} KB`).join(', ')}`);
  } finally {
    fs.rmSync(allocDir, { recursive: true, force: true });
    for (const s of servers) if (s.child) await stopServer(s.child);
    await fresh.drop();
  }
}

await main();
