// The runtime smoke of `npm run check:sdks`: a server as `npm start` runs it (embedded PGlite in a
// temporary data directory, a free port), then GET /api/health through each generated client that
// has a health() in generators.ts, configured as generated: its base URL is what it took from the
// spec's `servers`. Node's fetch needs an absolute URL, so a relative server fails here, as it
// does for integrators. Requests are routed to the local server at the connection (undici's
// global dispatcher): the URL the client built is what is tested, whatever host it names.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { registerHooks } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Agent, setGlobalDispatcher } from 'undici';
import { freePort, stopServer } from '../bench-kit.ts';
import type { Generator } from './generators.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const STARTUP_DEADLINE_MS = 60_000;
const CALL_DEADLINE_MS = 15_000;

/** Generated code imports `./x.js` for `./x.ts` (as tsc wants); Node's type stripping does not map that. */
function resolveJsToTs(): void {
  registerHooks({
    resolve(specifier, context, next) {
      try {
        return next(specifier, context);
      } catch (err) {
        if (!/^\.\.?\/.*\.js$/.test(specifier)) throw err;
        return next(`${specifier.slice(0, -3)}.ts`, context);
      }
    },
  });
}

function healthy(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(`${origin}/api/health`, { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });
}

async function startServer(): Promise<{ origin: string; stop(): Promise<void> }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-sdk-check-'));
  const { DATABASE_URL: _embedded, ...inherited } = process.env;
  const env = { ...inherited, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, ['src/server.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const stop = async () => {
    await stopServer(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const origin = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (!(await healthy(origin))) {
    if (child.exitCode !== null || Date.now() - started > STARTUP_DEADLINE_MS) {
      await stop();
      throw new Error(`the server did not start: ${output.trim().split('\n').slice(-3).join(' | ')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, stop };
}

function deadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const describe = (err: unknown): string => {
  const e = err as { message?: string; cause?: { message?: string } };
  return [e?.message ?? String(err), e?.cause?.message].filter(Boolean).join(': ');
};

/** GET /api/health through each client; returns one line per result, `ok` false for failures. */
export async function smoke(clients: Generator[], outDir: (g: Generator) => string, servers: string[]) {
  const results: { ok: boolean; line: string }[] = [];
  const absolute = servers.filter((s) => URL.canParse(s));
  const expected = absolute.map((s) => new URL('api/health', s.endsWith('/') ? s : `${s}/`).href);
  const hint = absolute.length ? '' : ` (the spec's servers give no absolute URL: ${servers.join(', ') || 'none'})`;
  resolveJsToTs();
  const server = await startServer();
  const requested: string[] = [];
  const agent = new Agent();
  setGlobalDispatcher(
    agent.compose((dispatch) => (opts, handler) => {
      requested.push(new URL(opts.path, String(opts.origin)).href);
      return dispatch({ ...opts, origin: server.origin }, handler);
    }),
  );
  try {
    for (const g of clients) {
      requested.length = 0;
      try {
        const { status, body } = await deadline(g.health!(outDir(g)), CALL_DEADLINE_MS);
        const asked = requested[0] ?? '(no request)';
        if (status !== 200) results.push({ ok: false, line: `${g.id}: GET ${asked} answered ${status}: ${JSON.stringify(body)}` });
        else if (!expected.includes(asked))
          results.push({
            ok: false,
            line: `${g.id}: asked for ${asked}, not /api/health under a server of the spec (${servers.join(', ')})`,
          });
        else results.push({ ok: true, line: `${g.id}: GET ${asked} → 200 ${JSON.stringify(body)}` });
      } catch (err) {
        results.push({ ok: false, line: `${g.id}: GET /api/health fails in Node with its default base URL: ${describe(err)}${hint}` });
      }
    }
  } finally {
    await agent.close();
    await server.stop();
  }
  return results;
}
