// The real server process, as `npm start` runs it: it answers quickly, serves the spec and the
// docs, and on SIGTERM stops accepting, finishes the requests in flight, stops pg-boss, closes the
// database and exits 0, leaving a data directory that opens again cleanly.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../db/client.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import { SERVER_NODE_ARGS } from '../../scripts/start-command.ts';
import { startFakeGithub } from '../fakes/github.ts';
import { CookieJar, SESSION_COOKIE } from '../helpers/session.ts';
import {
  SERVER_SCRIPT,
  get,
  killRunningServers,
  pgliteDataDir,
  spawnServer,
  waitUntilHealthy,
  type ServerProcess,
} from '../helpers/server-process.ts';
import { freePort } from '../helpers/server.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';

/**
 * A POST whose body is held back: the headers and the first half go now, so the server has the
 * request in flight (routed, authenticated, waiting for the body); `finish()` sends the rest.
 */
function heldPost(url: string, apiKey: string, body: object) {
  const text = JSON.stringify(body);
  const half = Math.floor(text.length / 2);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          data += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: data }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(text.slice(0, half));
    finish = () => req.end(text.slice(half));
  });
  return { response, finish: () => finish() };
}

async function until(what: string, condition: () => boolean, server: ServerProcess, ms = 15_000) {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting for ${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  killRunningServers();
  for (const cleanup of cleanups) await cleanup();
});

async function freshServerDatabase(adminUrl: string): Promise<string> {
  const name = `gm_proc_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await a.unsafe(`drop database if exists ${name} with (force)`);
    await a.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// Each run starts the server on its own database; what follows (npm, the log) is the same process
// whatever its database, and runs on the embedded run only (tests/helpers/runs.ts).
const variants = EMBEDDED_RUN
  ? [{ name: 'embedded PGlite under DATA_DIR', server: false }]
  : [{ name: 'server Postgres (DATABASE_URL)', server: true }];

describe.each(variants)('node dist/server.js on $name', ({ server: onServer }) => {
  it('starts, serves the spec and docs, shuts down gracefully on SIGTERM, and starts again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-proc-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    // At debug level each request is also logged as it arrives: how the batch below is seen in flight.
    const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'debug' };
    if (onServer) env.DATABASE_URL = await freshServerDatabase(process.env.DATABASE_URL!);

    // A user with a key, made in the same database before the server opens it (as the CLI does).
    const setup = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir });
    await migrate(setup);
    const { apiKey } = await createUserWithKey({ db: setup.db }, 'Process Tester');
    await setup.close();

    const server = await spawnServer(env);
    const ms = await waitUntilHealthy(server);
    console.log(`[server-process] healthy ${Math.round(ms)} ms after spawn (${onServer ? 'Postgres' : 'PGlite'})`);
    // The log goes out in batches (up to 20 ms, LogDestination): the line may follow the health answer.
    await until(
      'the listening line',
      () => server.logs().some((l) => typeof l.msg === 'string' && l.msg.startsWith('gigmarket listening on')),
      server,
    );

    const yaml = await get(`${server.url}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/yaml/);
    expect(yaml.body).toMatch(/^openapi: 3\.1\.0$/m);
    const json = await get(`${server.url}/openapi.json`);
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body)).toMatchObject({ openapi: '3.1.0', info: { title: 'gigmarket API' } });
    // Published with this server's own public URL first (PUBLIC_URL, by default on its port).
    const port = new URL(server.url).port;
    expect(JSON.parse(json.body).servers[0]).toEqual({ url: `http://localhost:${port}`, description: 'This server.' });
    expect(yaml.body).toContain(`servers:\n  - url: "http://localhost:${port}"\n`);
    const docs = await fetch(`${server.url}/docs`, { headers: { connection: 'close' } });
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    expect(await docs.text()).toMatch(/<html/i);
    // The MCP server, which the bundle keeps in a chunk of its own until the first MCP request.
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'process-test', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('mcp-session-id')).toBeTruthy();
    expect(await mcp.text()).toContain('"serverInfo":{"name":"gigmarket"');

    // One line per answered request (two at debug level: also as it arrives), with status and time.
    const yamlLines = () => server.logs().filter((l) => (l.req as { url?: string })?.url === '/openapi.yaml');
    await until('the /openapi.yaml request logged', () => yamlLines().some((l) => l.msg === 'request completed'), server);
    const lines = yamlLines();
    expect(lines.map((l) => [l.msg, (l.res as { statusCode?: number })?.statusCode])).toEqual([
      ['incoming request', undefined],
      ['request completed', 200],
    ]);
    expect(lines[1]!.responseTime).toBeTypeOf('number');

    // A batch of requests in flight: each routed and authenticated, its body still arriving.
    const batch = Array.from({ length: 8 }, (_, i) => heldPost(`${server.url}/api/gigs`, apiKey, { title: `In flight ${i}` }));
    const incoming = () =>
      server.logs().filter((l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/api/gigs').length;
    await until('the batch to reach the server', () => incoming() === batch.length, server);

    server.child.kill('SIGTERM');
    await until('the shutdown to begin', () => server.logs().some((l) => l.msg === 'shutting down'), server);
    // It stops accepting: a new connection is refused (or answered 503) while the batch is open.
    let refused = false;
    const started = performance.now();
    while (!refused && performance.now() - started < 10_000) {
      try {
        const res = await get(`${server.url}/api/health`);
        refused = res.status === 503;
      } catch (err) {
        refused = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      }
      if (!refused) await new Promise((r) => setTimeout(r, 20));
    }
    expect(refused, 'new connections refused during shutdown').toBe(true);

    for (const request of batch) request.finish();
    const settled = await Promise.allSettled(batch.map((r) => r.response));
    expect(
      settled.filter((r) => r.status === 'rejected'),
      'requests reset',
    ).toEqual([]);
    const responses = settled.map((r) => (r as PromiseFulfilledResult<{ status: number; body: string }>).value);
    for (const [i, res] of responses.entries()) {
      expect(res.status, res.body).toBe(201);
      expect(JSON.parse(res.body)).toMatchObject({ title: `In flight ${i}` });
    }
    const ids = responses.map((r) => (JSON.parse(r.body) as { id: string }).id);

    const exit = await server.exited;
    expect(exit, server.output()).toEqual({ code: 0, signal: null });
    const messages = server.logs().map((l) => l.msg);
    expect(messages).toContain('shutting down');
    expect(messages).toContain('shut down');
    expect(
      server.logs().filter((l) => (l.level ?? 0) >= 50),
      'no errors logged',
    ).toEqual([]);

    // The same data opens again, and what the in-flight requests wrote is there.
    const again = await spawnServer(env);
    await waitUntilHealthy(again);
    for (const id of ids) {
      const res = await fetch(`${again.url}/api/gigs/${id}`, { headers: { authorization: `Bearer ${apiKey}`, connection: 'close' } });
      expect(res.status).toBe(200);
    }
    again.child.kill('SIGTERM');
    expect(await again.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});

describe.runIf(EMBEDDED_RUN)('npm start', () => {
  it('runs node dist/server.js in its own place: a SIGTERM sent to npm reaches the server, which shuts down gracefully', async () => {
    const dataDir = await pgliteDataDir('gm-proc-');
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    // npm as this test was started by (npx sets npm_execpath), else the one on PATH.
    const npmCli = process.env.npm_execpath;
    const [command, args] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli, 'start']] : ['npm', ['start']];
    const npm = spawn(command, args, {
      cwd: path.resolve(import.meta.dirname, '..', '..'),
      env: { ...inherited, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    const npmExited = new Promise((resolve) => npm.once('exit', resolve));
    const started = performance.now();
    while (
      !(await get(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.status === 200,
        () => false,
      ))
    ) {
      if (performance.now() - started > 45_000) throw new Error(`npm start did not answer:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const pid = (JSON.parse(out.split('\n').find((l) => l.includes('gigmarket listening on'))!) as { pid: number }).pid;
    npm.kill('SIGTERM');
    await npmExited;
    const gone = performance.now();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive() && performance.now() - gone < 15_000) await new Promise((r) => setTimeout(r, 50));
    if (alive()) process.kill(pid, 'SIGKILL');
    expect(alive(), `the server outlived npm:\n${out}`).toBe(false);
    expect(out).toContain('"msg":"shut down"');
  }, 120_000);
});

describe.runIf(EMBEDDED_RUN)('the client address in the log', () => {
  it('is the socket peer, whatever X-Forwarded-For says, unless TRUST_PROXY names the proxy', async () => {
    const dataDir = await pgliteDataDir('gm-proc-');
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const loggedAddress = async (env: Record<string, string>) => {
      const server = await spawnServer({ DATA_DIR: dataDir, ...env });
      await waitUntilHealthy(server);
      await fetch(`${server.url}/api/health?probe=proxy`, { headers: { 'x-forwarded-for': '203.0.113.9', connection: 'close' } });
      server.child.kill('SIGTERM');
      await server.exited;
      const line = server.logs().find((l) => (l.req as { url?: string } | undefined)?.url === '/api/health?probe=proxy');
      return (line?.req as { remoteAddress?: string } | undefined)?.remoteAddress;
    };
    expect(await loggedAddress({})).toBe('127.0.0.1');
    expect(await loggedAddress({ TRUST_PROXY: '127.0.0.1' })).toBe('203.0.113.9');
  }, 120_000);
});

describe.runIf(EMBEDDED_RUN)('the server log', () => {
  it('holds no credential: no API key, session cookie, OAuth code or state, sandbox token, even on an error', async () => {
    const dataDir = await pgliteDataDir('gm-proc-');
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const setup = await openDatabase({ dataDir });
    await migrate(setup);
    const { apiKey } = await createUserWithKey({ db: setup.db }, 'Log Reader');
    await setup.close();
    const github = await startFakeGithub();
    cleanups.push(() => github.close().catch(() => {})); // closed by the test itself, unless it failed first
    const port = await freePort();
    const server = await spawnServer({ DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, ...github.env }, port);
    await waitUntilHealthy(server);

    // A GitHub sign-in: the callback URL carries the code and the state.
    const jar = new CookieJar();
    const start = await jar.fetch(`${server.url}/auth/github`);
    const approved = await jar.fetch(start.headers.get('location')!);
    const callback = new URL(approved.headers.get('location')!);
    expect((await jar.fetch(callback.toString())).status).toBe(302);
    const session = decodeURIComponent(jar.cookies.get(SESSION_COOKIE)!).split('.')[0]!; // the token, before its signature
    const credentials = { cookie: jar.header(), authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey, connection: 'close' };
    expect((await fetch(`${server.url}/api/keys/verify`, { headers: credentials })).status).toBe(200);
    expect(
      (await fetch(`${server.url}/api/profile/me`, { headers: { ...credentials, 'x-api-key': `gm_live_${'Z'.repeat(40)}` } })).status,
    ).toBe(401);
    const token = 'sandbox-token-value';
    await fetch(`${server.url}/sandbox/connect/acct_1?token=${token}&return_url=%2F`, { headers: { connection: 'close' } });

    // A 500 (GitHub is gone when the token is exchanged) on a request that carries every credential.
    await github.close();
    const again = await jar.fetch(`${server.url}/auth/github`);
    const state = new URL(again.headers.get('location')!).searchParams.get('state')!;
    const failed = await fetch(`${server.url}/auth/github/callback?code=second-code-value&state=${state}`, {
      headers: { ...credentials, cookie: jar.header() },
    });
    expect(failed.status).toBe(500);

    server.child.kill('SIGTERM');
    await server.exited;
    const log = server.output();
    expect(
      server.logs().some((l) => l.level === 50),
      'the error was logged',
    ).toBe(true);
    expect(server.logs().some((l) => (l.req as { url?: string })?.url === '/auth/github/callback?code=[Redacted]&state=[Redacted]')).toBe(
      true,
    );
    for (const secret of [
      apiKey,
      session,
      callback.searchParams.get('code')!,
      callback.searchParams.get('state')!,
      state,
      'second-code-value',
      token,
      github.clientSecret,
    ]) {
      expect(log, `the log holds ${secret}`).not.toContain(secret);
    }
  }, 120_000);
});

describe.runIf(EMBEDDED_RUN)('a server whose log nobody reads', () => {
  /** A server on its own PGlite whose standard output the test controls; resolves once it listens. */
  async function unreadServer() {
    const dataDir = await pgliteDataDir('gm-log-');
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [...SERVER_NODE_ARGS, SERVER_SCRIPT], {
      cwd: path.resolve(import.meta.dirname, '..', '..'),
      env: { ...inherited, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    cleanups.push(async () => void child.kill('SIGKILL'));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        if (String(d).includes('gigmarket listening on')) {
          child.stdout!.off('data', onData);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
    });
    return { url: `http://127.0.0.1:${port}`, child, exited };
  }

  /** Requests that each log a line or two: enough to fill a pipe several times over. */
  async function busy(url: string, n: number) {
    const one = async () => {
      for (let i = 0; i < n / 4; i++) await (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5000) })).text();
    };
    await Promise.all([one(), one(), one(), one()]);
  }

  const exitsWithin = (exited: Promise<number | null>, ms: number) =>
    Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms))]);

  it('keeps serving, and exits 0 on SIGTERM, when the reader stopped reading (a full pipe)', async () => {
    const server = await unreadServer();
    server.child.stdout!.pause(); // held open, never read again
    await busy(server.url, 600);
    server.child.kill('SIGTERM');
    expect(await exitsWithin(server.exited, 20_000)).toBe(0);
  }, 120_000);

  it('keeps serving, and exits 0 on SIGTERM, when the reader closed its end', async () => {
    const server = await unreadServer();
    server.child.stdout!.destroy();
    await busy(server.url, 100);
    server.child.kill('SIGTERM');
    expect(await exitsWithin(server.exited, 20_000)).toBe(0);
  }, 120_000);
});
