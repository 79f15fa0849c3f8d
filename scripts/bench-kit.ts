// What the benchmarks share: a progress bar, quantiles, a free port, a fresh database, and
// starting and stopping the server they run.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openDatabase, type Database } from '../db/client.ts';
import { SERVER_NODE_ARGS } from './start-command.ts';

/** A progress bar on stderr; `extra` adds a note after the counts. */
export function progress(label: string, total: number) {
  const started = Date.now();
  let shown = -1;
  return (done: number, extra = '') => {
    const percent = Math.floor((Math.min(done, total) / total) * 100);
    if (percent === shown && !extra) return;
    shown = percent;
    const width = 30;
    const filled = Math.round((Math.min(done, total) / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    const counts = `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counts} ${secs}s ${extra}   `);
    if (done >= total) process.stderr.write('\n');
  };
}

/** The p-quantile of the values, nearest rank (NaN when there are none): for p95s of many samples. */
export const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : Number.NaN;
};

/**
 * The median: of an even count, the mean of the two middle values. quantile(xs, 0.5) takes the
 * upper one, which over a bench's six or eight rounds reads up to a round's worth high.
 */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** SIGTERM, then SIGKILL after 20 s; resolves once the process has exited. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// npm start's node flags (package.json: none), which every benchmark's server runs with.
export { SERVER_NODE_ARGS };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The script `npm start` runs in a checkout: its bundle (dist/server.js, built first when missing or
 * stale, in that checkout), or src/server.ts for a checkout older than the bundle (bench:ab).
 */
export function serverEntry(root = ROOT): string {
  if (!fs.existsSync(path.join(root, 'scripts/build-server.ts'))) return path.join(root, 'src/server.ts');
  const built = spawnSync(process.execPath, ['scripts/build-server.ts', '--if-needed'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`could not bundle the server in ${root}`);
  return path.join(root, 'dist/server.js');
}

/**
 * The server as production runs it (`npm start`: node with SERVER_NODE_ARGS, its own process), answering
 * /api/health; `env` adds to (or overrides) the bench defaults below. `nodeArgs` go before the
 * script (e.g. `--cpu-prof`), `stdout: 'ignore'` drops its log (the cost of writing it stays), a
 * file descriptor keeps it in that file; `root` runs another checkout's server.
 */
export async function startServer(
  env: Record<string, string>,
  port: number,
  options: { nodeArgs?: string[]; stdout?: 'inherit' | 'ignore' | number; root?: string } = {},
): Promise<ChildProcess> {
  // `root`: another checkout's server (bench:ab), run from there.
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, ...(options.nodeArgs ?? []), serverEntry(root)], {
    cwd: root,
    env: {
      ...process.env,
      // test: no source syncing; not production, which requires https for webhooks.
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      EMBEDDINGS_URL: '',
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
      ...env,
    },
    stdio: ['ignore', options.stdout ?? 'inherit', 'inherit'],
  });
  await untilHealthy(child, port);
  return child;
}

/** Resolves once the process answers 200 at /api/health; throws when it exits or 45 s pass. */
export async function untilHealthy(child: ChildProcess, port: number): Promise<void> {
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the server exited (code ${code}) before answering`))),
  );
  const deadline = Date.now() + 45_000;
  for (;;) {
    const up = new Promise<boolean>((resolve) =>
      http
        .get(`http://127.0.0.1:${port}/api/health`, { agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false)),
    );
    if (await Promise.race([up, exited])) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the server did not answer /api/health within 45 s');
    }
    await sleep(100);
  }
}

export interface BenchDatabase {
  /** What the server's process needs to use it. */
  env: Record<string, string>;
  label: string;
  /** The server Postgres URL (undefined for PGlite). */
  url?: string;
  open(): Promise<Database>;
  drop(): Promise<void>;
}

/** The bench's own database: a fresh one on the server Postgres (DATABASE_URL), or a temporary PGlite directory. */
export async function freshDatabase(name: string): Promise<BenchDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const database = `gm_bench_${randomBytes(5).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${database}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    const dbUrl = url.toString();
    return {
      env: { DATABASE_URL: dbUrl },
      label: `server Postgres (${url.host}, database ${database})`,
      url: dbUrl,
      open: () => openDatabase({ databaseUrl: dbUrl, max: 2 }),
      async drop() {
        const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
        await a.unsafe(`drop database if exists ${database} with (force)`);
        await a.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `gm-bench-${name}-`));
  const dataDir = path.join(dir, 'data');
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    label: `PGlite (DATA_DIR ${dataDir})`,
    open: () => openDatabase({ dataDir }),
    async drop() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
