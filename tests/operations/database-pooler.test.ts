// A server Postgres behind a connection pooler in transaction mode (Debian's pgbouncer, run here):
// the server process refuses to start through one it would misbehave through, naming what to set,
// and with DATABASE_POOLER=transaction and DATABASE_DIRECT_URL it serves through it, hearing a
// revocation sent through the pool at once. On the server Postgres run, with pgbouncer installed
// (skipped without it, failed under CI=true); db/unpipelined.ts's own behaviour on any server
// Postgres. The settings' own rules run on the embedded run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { unpipelined } from '../../db/unpipelined.ts';
import { openDatabase } from '../../db/client.ts';
import { rowsOf } from '../../db/sql.ts';
import { revokeUserApiKey } from '../../src/services/api-keys.ts';
import { userActor } from '../../src/actor.ts';
import { startPgbouncer, stopPart, type Part } from '../../scripts/cluster/parts.ts';
import { get, killRunningServers, processDatabase, spawnServer, usersBeforeStart, waitUntilHealthy } from '../helpers/server-process.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';
import { askedThrice } from '../helpers/pending-query.ts';

const hasPgbouncer = spawnSync('pgbouncer', ['-V'], { stdio: 'ignore' }).error === undefined;
const serverRun = !EMBEDDED_RUN;
const title = (t: string) => (hasPgbouncer || !serverRun ? t : `${t} (skipped: pgbouncer is not installed; apt-get install -y pgbouncer)`);

const parts: Part[] = [];
const dirs: string[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  killRunningServers();
  for (const part of parts) await stopPart(part);
  for (const drop of drops) await drop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh migrated database, PgBouncer in transaction mode in front of it (two server connections, `extra` lines), and both URLs. */
async function pooled(extra: string[] = []) {
  const database = await processDatabase();
  drops.push(database.drop);
  if (!('DATABASE_URL' in database.env)) throw new Error('a server Postgres run');
  const direct = database.env.DATABASE_URL;
  const target = new URL(direct);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-pooler-'));
  dirs.push(dir);
  const bouncer = await startPgbouncer(
    dir,
    { host: target.hostname, port: target.port || '5432', name: target.pathname.slice(1) },
    2,
    extra,
  );
  parts.push(bouncer.part);
  const url = new URL(direct);
  url.port = String(bouncer.port);
  return { env: database.env, direct, pooledUrl: url.toString() };
}

/** The server's first line of error as it refuses to start, and its exit code. */
async function refusal(env: Record<string, string>) {
  const server = await spawnServer(env);
  const { code } = await server.exited;
  return {
    code,
    error:
      server
        .output()
        .split('\n')
        .find((l) => l.startsWith('Error:')) ?? server.output(),
  };
}

describe.runIf(serverRun && (hasPgbouncer || process.env.CI))(title('the server through PgBouncer in transaction mode'), () => {
  it('refuses to start through it undeclared, saying what to set: PgBouncer refuses the settings sent at connect', async () => {
    const { pooledUrl } = await pooled();
    const { code, error } = await refusal({ DATABASE_URL: pooledUrl });
    expect(code).not.toBe(0);
    expect(error).toContain(
      'DATABASE_URL goes through a connection pooler, which refused a setting sent at connect (unsupported startup parameter: jit)',
    );
    expect(error).toContain('set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL');
  });

  it('refuses it too when PgBouncer ignores those settings: a LISTEN through it never hears a NOTIFY', async () => {
    const { pooledUrl } = await pooled(['ignore_startup_parameters = jit,statement_timeout,idle_in_transaction_session_timeout']);
    const { code, error } = await refusal({ DATABASE_URL: pooledUrl });
    expect(code).not.toBe(0);
    expect(error).toContain(
      'a LISTEN on DATABASE_URL did not hear a NOTIFY sent through it within 5 s: DATABASE_URL goes through a pooler in transaction mode',
    );
    expect(error).toContain('Set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL');
  });

  it('refuses a DATABASE_DIRECT_URL that goes through the pooler as well', async () => {
    const { pooledUrl } = await pooled();
    const { code, error } = await refusal({ DATABASE_URL: pooledUrl, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: pooledUrl });
    expect(code).not.toBe(0);
    expect(error).toContain('a LISTEN on DATABASE_DIRECT_URL did not hear a NOTIFY sent through DATABASE_URL within 5 s');
  });

  it('declared, no statement waits for ever behind another on a busy connection (PgBouncer 1.18 loses what was pipelined)', async () => {
    const { direct, pooledUrl } = await pooled();
    const database = await openDatabase({ databaseUrl: pooledUrl, directUrl: direct, max: 4 });
    try {
      // Statements without parameters (sent whole) among ones with (Parse and Describe first), far
      // more than connections; without db/unpipelined.ts about one in a thousand got no answer.
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          Array.from({ length: 600 }, (_, i) =>
            Promise.race([
              rowsOf<{ n: number }>(database.db, i % 3 ? sql`select ${i}::int as n` : sql`select 0 as n`).then(([row]) => row!.n),
              new Promise((r) => setTimeout(() => r('no answer'), 10_000)),
            ]),
          ),
        );
        expect(answers).toEqual(answers.map((_, i) => (i % 3 ? i : 0)));
      }
    } finally {
      await database.close();
    }
  });

  it('declared, serves through it, warns about the settings the database lacks, and hears a revocation sent through the pool', async () => {
    const { env, direct, pooledUrl } = await pooled();
    const [ada] = await usersBeforeStart(env, 'Ada');
    const server = await spawnServer({ DATABASE_URL: pooledUrl, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct });
    await waitUntilHealthy(server);
    const warning = server.logs().find((l) => l.level === 40 && String(l.msg).startsWith('through the pooler'));
    expect(warning?.msg).toContain('the database has jit = on');
    expect(warning?.msg).toContain('ALTER DATABASE … SET jit = off');

    // Many requests at once over two server connections: each transaction may land on either.
    const auth = { headers: { authorization: `Bearer ${ada.apiKey}` } };
    const created = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { ...auth.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Build a Rust CLI', tags: ['rust'] }),
    });
    expect(created.status).toBe(201);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => fetch(`${server.url}/api/gigs?owner=me&limit=${(i % 5) + 1}`, auth).then((r) => r.status)),
    );
    expect(statuses).toEqual(statuses.map(() => 200));

    // Revoked beside the server as the CLI does it, its NOTIFY sent through the pool.
    const cli = await openDatabase({ databaseUrl: pooledUrl, directUrl: direct, max: 1 });
    await revokeUserApiKey({ db: cli.db }, userActor(ada.userId), ada.apiKeyId);
    await cli.close();
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${server.url}/api/gigs?owner=me`, auth)).status).toBe(401);
    expect((await get(`${server.url}/api/health`)).status).toBe(200);
  });
});

// db/unpipelined.ts's own behaviour needs no pooler: any server Postgres shows it.
describe.runIf(serverRun)('db/unpipelined.ts', () => {
  it('sends a statement once however often it is awaited, and refuses a tagged template', async () => {
    // One connection: the temporary sequence is on it, and each reserved connection is that one.
    const client = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      await client.unsafe('create temporary sequence unpipelined_once');
      const wrapped = unpipelined(client);
      const next = () => wrapped.unsafe<{ n: number }[]>("select nextval('unpipelined_once')::int as n");
      expect((await askedThrice(next())).map((rows) => rows[0]!.n)).toEqual([1, 1, 1]);
      const asArrays = next();
      expect([await asArrays.values(), await asArrays.values()].map((rows) => rows[0])).toEqual([[2], [2]]);
      // sql`…` would be pipelined past the wrapper: it fails instead.
      expect(() => wrapped`select 1`).toThrow('db/unpipelined.ts: a tagged template (sql`…`) would bypass this wrapper');
      expect((await client.unsafe<{ n: number }[]>("select nextval('unpipelined_once')::int as n"))[0]!.n).toBe(3);
    } finally {
      await client.end();
    }
  });
});

describe.runIf(EMBEDDED_RUN)('DATABASE_POOLER and DATABASE_DIRECT_URL', () => {
  const url = 'postgres://app@pooler:6432/gigmarket';
  const direct = 'postgres://app@db:5432/gigmarket';
  it('transaction mode needs the direct URL, which is read only then', () => {
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct }).databaseDirectUrl).toBe(direct);
    expect(loadConfig({ DATABASE_URL: url }).databaseDirectUrl).toBeUndefined();
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOLER: 'transaction' })).toThrow(
      'DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: the same database without the pooler, for LISTEN and migrations',
    );
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: direct })).toThrow(
      'DATABASE_DIRECT_URL is read only with DATABASE_POOLER=transaction',
    );
    expect(() => loadConfig({ DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct })).toThrow(
      'DATABASE_POOLER=transaction needs DATABASE_URL',
    );
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOLER: 'session' })).toThrow(
      'DATABASE_POOLER must be none or transaction, got "session"',
    );
  });
});
