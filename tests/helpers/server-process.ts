// Real server processes, as `npm start` runs them (its node flags, scripts/start-command.ts), for
// tests that need the process itself (start-up, signals, logs) or more than one of them.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SERVER_NODE_ARGS } from '../../scripts/start-command.ts';
import { migrate, openDatabase } from '../../db/client.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import { freePort, migratedServerDatabase, pgliteTemplate } from './server.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
/** What `npm start` runs: the server's bundle, built by the tests' global setup (tests/setup/builds.ts). */
export const SERVER_SCRIPT = 'dist/server.js';
const STARTUP_DEADLINE_MS = 45_000;
const running = new Set<ChildProcess>();

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** pino's JSON lines so far (non-JSON output kept as { msg }). */
  logs(): { msg?: string; level?: number; [k: string]: unknown }[];
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ProcessDatabase {
  /** DATABASE_URL (a server Postgres) or DATA_DIR (PGlite), as a process is given it. */
  env: { DATABASE_URL: string } | { DATA_DIR: string };
  drop(): Promise<void>;
}

/**
 * A migrated database for processes of their own: a copy of the run's template on the Postgres
 * server when DATABASE_URL is set, else a PGlite data directory that starts as one.
 */
export async function processDatabase(): Promise<ProcessDatabase> {
  if (process.env.DATABASE_URL) {
    const fresh = await migratedServerDatabase(process.env.DATABASE_URL);
    return { env: { DATABASE_URL: fresh.url }, drop: fresh.drop };
  }
  const dir = await pgliteDataDir();
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A new PGlite data directory (for DATA_DIR), migrated: a copy of the run's template (empty outside vitest's run). */
export async function pgliteDataDir(prefix = 'gm-process-'): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const template = pgliteTemplate();
  if (template) await (await openDatabase({ dataDir: dir, loadDataDir: template })).close();
  return dir;
}

/** Users with API keys, made in the database before a server process opens it, as the operator CLI makes them. */
export async function usersBeforeStart<const Names extends string[]>(
  env: ProcessDatabase['env'],
  ...names: Names
): Promise<{ [K in keyof Names]: Awaited<ReturnType<typeof createUserWithKey>> }> {
  const database = await openDatabase('DATABASE_URL' in env ? { databaseUrl: env.DATABASE_URL, max: 1 } : { dataDir: env.DATA_DIR });
  try {
    await migrate(database); // a no-op on a copy of the template
    const made = [];
    for (const name of names) made.push(await createUserWithKey({ db: database.db }, name));
    return made as { [K in keyof Names]: Awaited<ReturnType<typeof createUserWithKey>> };
  } finally {
    await database.close();
  }
}

/** SIGKILLs every server this test file started and did not stop. */
export function killRunningServers(): void {
  for (const child of running) child.kill('SIGKILL');
}

export async function spawnServer(env: Record<string, string>, port?: number): Promise<ServerProcess> {
  port ??= await freePort();
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, SERVER_SCRIPT], {
    cwd: root,
    env: { ...inherited, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  running.add(child);
  void exited.then(() => running.delete(child));
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => out,
    logs: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          try {
            return JSON.parse(line);
          } catch {
            return { msg: line };
          }
        }),
    exited,
  };
}

/** Polls /api/health until 200; returns how long it took. */
export async function waitUntilHealthy(server: ServerProcess): Promise<number> {
  const started = performance.now();
  let exit: unknown;
  void server.exited.then((e) => {
    exit = e;
  });
  while (performance.now() - started < STARTUP_DEADLINE_MS) {
    if (exit) throw new Error(`the server exited during start-up (${JSON.stringify(exit)}):\n${server.output()}`);
    try {
      const res = await get(`${server.url}/api/health`);
      if (res.status === 200) return performance.now() - started;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no healthy answer within ${STARTUP_DEADLINE_MS} ms:\n${server.output()}`);
}

/** A GET on a fresh connection (no keep-alive), so nothing is left open between steps. */
export function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
