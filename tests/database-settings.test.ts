// Settings the database runs with. Embedded PGlite's shared_buffers: 16MB by default
// (PGLITE_SHARED_BUFFERS), so the server's resident set does not carry PGlite's own 128MB of
// buffers; a bad size stops the start. A server Postgres: JIT off on every connection, the pool
// handing each query its most recently idle connection, and each new connection running the
// backend-heap setup statement first (both patches/postgres+3.4.9.patch). And (the patch too) a
// tagged query's origin keeps no caller alive, and a query's objects die young.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { BACKEND_HEAP_SETUP, openDatabase } from '../db/client.ts';
import { loadConfig } from '../src/config.ts';

describe('PGLITE_SHARED_BUFFERS', () => {
  it('is 16MB unless set, and takes a Postgres size', () => {
    expect(loadConfig({}).pgliteSharedBuffers).toBe('16MB');
    expect(loadConfig({ PGLITE_SHARED_BUFFERS: '64MB' }).pgliteSharedBuffers).toBe('64MB');
    expect(loadConfig({ PGLITE_SHARED_BUFFERS: '512kB' }).pgliteSharedBuffers).toBe('512kB');
  });

  it.each(['16', '16mb', '1.5GB', '64kB', '-1MB', ' 16MB'])('refuses %j, naming the variable', (bad) => {
    expect(() => loadConfig({ PGLITE_SHARED_BUFFERS: bad })).toThrow(/PGLITE_SHARED_BUFFERS must be a size such as 16MB/);
  });

  it('is the setting the embedded database runs with', async () => {
    for (const [size, shown] of [
      ['16MB', '16MB'],
      ['2048kB', '2MB'],
    ]) {
      const database = await openDatabase({ pgliteSharedBuffers: size });
      try {
        if (database.kind !== 'pglite') throw new Error('expected PGlite');
        const { rows } = await database.pglite.query<{ shared_buffers: string }>('show shared_buffers');
        expect(rows[0]!.shared_buffers).toBe(shown);
      } finally {
        await database.close();
      }
    }
  });
});

// The patch's item on a query's origin, in both of the package's builds. postgres.js keeps an
// Error per tagged call site, for the query's `origin`; until its stack was read, V8 held each
// frame's function and receiver, and so whatever the first caller there closed over, for the life
// of the process.
describe.each([
  ['esm', postgres],
  ['cjs', createRequire(import.meta.url)('postgres') as typeof postgres],
])('a tagged query (%s build)', (_build, open) => {
  it('keeps nothing its first caller closed over alive once it is done, and still knows where it was made', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // Never connects: a query runs only when awaited, and the origin is taken when it is made.
    const sql = open('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    let held: WeakRef<object> | undefined;
    let query: postgres.PendingQuery<postgres.Row[]> | undefined;
    const firstCaller = () => {
      const big = { text: 'x'.repeat(1_000_000) };
      held = new WeakRef(big);
      const makeQuery = () => sql`select ${big.text.length}::int as n`;
      query = makeQuery();
    };
    firstCaller();
    // WeakRef targets live to the end of the current job.
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
    expect(held!.deref()).toBeUndefined();
    // Read only now: reading it is what let go of the frames before the patch.
    expect((query as unknown as { origin: string }).origin).toMatch(/makeQuery/);
    await sql.end();
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a server Postgres', () => {
  it('runs every query of the pool with JIT off', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 });
    try {
      if (database.kind !== 'postgres') throw new Error('expected a server Postgres');
      const shown = await Promise.all([1, 2, 3].map(() => database.sql<{ jit: string }[]>`show jit`));
      expect(shown.map((rows) => rows[0]!.jit)).toEqual(['off', 'off', 'off']);
    } finally {
      await database.close();
    }
  });

  it('hands each query the connection that went idle last, so that a quiet server keeps using one warm backend', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 3 });
    try {
      if (database.kind !== 'postgres') throw new Error('expected a server Postgres');
      const pid = async () => (await database.sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      // Three at once open all three connections; the one that finishes last is the most recently idle.
      const finished: number[] = [];
      await Promise.all(
        [0.02, 0.04, 0.08].map(async (s) => {
          finished.push((await database.sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(${s})`)[0]!.pid);
        }),
      );
      expect(new Set(finished).size).toBe(3);
      const sequential: number[] = [];
      for (let i = 0; i < 6; i++) sequential.push(await pid());
      // postgres.js itself hands them out in turn (oldest idle first): every pid twice.
      expect(sequential).toEqual(Array(6).fill(finished[2]));
    } finally {
      await database.close();
    }
  });

  // The option the patch adds, in both of the package's builds (ESM for us, CommonJS for a require).
  const builds = { esm: postgres, cjs: createRequire(import.meta.url)('postgres') as typeof postgres };
  it.each(Object.keys(builds))(
    'runs the setup statement on every new connection before its first query, reconnections included (%s build)',
    async (build) => {
      const open = builds[build as keyof typeof builds];
      const sql = open(process.env.DATABASE_URL!, {
        max: 3,
        idle_timeout: 0.3,
        onnotice: () => {},
        setup: "select set_config('gigmarket.setup_ran', 'yes', false)",
      });
      try {
        const one = async () =>
          (
            await sql<
              { pid: number; ran: string | null }[]
            >`select pg_backend_pid() as pid, current_setting('gigmarket.setup_ran', true) as ran, pg_sleep(0.02)`
          )[0]!;
        const first = await Promise.all([1, 2, 3, 4, 5, 6].map(one));
        expect(new Set(first.map((r) => r.pid)).size).toBe(3);
        expect(first.map((r) => r.ran)).toEqual(Array(6).fill('yes'));
        const reserved = await sql.reserve();
        expect((await reserved<{ ran: string | null }[]>`select current_setting('gigmarket.setup_ran', true) as ran`)[0]!.ran).toBe('yes');
        reserved.release();
        // Connections closed when idle: the pool connects anew, and runs the statement again.
        await new Promise((resolve) => setTimeout(resolve, 800));
        const again = await Promise.all([1, 2, 3, 4, 5, 6].map(one));
        expect(again.every((r) => !first.some((f) => f.pid === r.pid))).toBe(true);
        expect(again.map((r) => r.ran)).toEqual(Array(6).fill('yes'));
      } finally {
        await sql.end();
      }
    },
  );

  it.each(Object.keys(builds))(
    '%s build: prepares one statement per text and parameter types, and runs it again for new values',
    async (build) => {
      const sql = builds[build as keyof typeof builds](process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        const text = `select $1 as v, '${build}-${Date.now()}' as tag`;
        const prepared = async () =>
          (await sql<{ types: string }[]>`select parameter_types::text as types from pg_prepared_statements where statement = ${text}`).map(
            (r) => r.types,
          );
        for (const value of ['a', 'b', 'c']) expect((await sql.unsafe(text, [value], { prepare: true }))[0]!.v).toBe(value);
        expect(await prepared()).toEqual(['{text}']);
        // The same text with a Date: another parameter type, so another statement (the signature
        // the patch caches is the types and the text together).
        const at = new Date('2026-01-02T03:04:05Z');
        expect(new Date((await sql.unsafe(text, [at], { prepare: true }))[0]!.v).getTime()).toBe(at.getTime());
        expect((await prepared()).sort()).toEqual(['{"timestamp with time zone"}', '{text}']);
      } finally {
        await sql.end();
      }
    },
  );

  // The patch's item on settling a query's promise. In Maglev (kept to it here with --max-opt=2;
  // TurboFan did not show it, so it came and went with which tier ran a process's code) a closure
  // made for each query kept every query's objects alive through the young generation's
  // collections: ~900 bytes of each query promoted to the old generation, which then needed full
  // collections to free it.
  it.each(Object.keys(builds))("%s build: a query's objects die young", async (build) => {
    const script = fileURLToPath(new URL('./fixtures/postgres-young-queries.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-opt=2', '--max-semi-space-size=16', script, build]);
    const { youngCollections, promotedBytesPerQuery } = JSON.parse(stdout.trim());
    expect(youngCollections).toBeGreaterThan(3);
    expect(promotedBytesPerQuery).toBeLessThan(50);
  });

  /** Minor page faults a backend has taken so far (/proc, when the server runs on this machine). */
  const faultsOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7]);
  const SORT = 'select count(*) from (select md5(g::text) as m from generate_series(1, 20000) g order by 1) s';
  /** Faults per statement of a sort needing ~2 MB, on one fresh connection of `sql`, after three to warm up. */
  const sortFaults = async (sql: postgres.Sql) => {
    const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
    for (let i = 0; i < 3; i++) await sql.unsafe(SORT);
    const before = faultsOf(pid);
    for (let i = 0; i < 10; i++) await sql.unsafe(SORT);
    return (faultsOf(pid) - before) / 10;
  };

  it('keeps a backend from giving its working memory back to the kernel after each statement, and taking it again', async (ctx) => {
    const plain = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 1 });
    try {
      if (database.kind !== 'postgres') throw new Error('expected a server Postgres');
      expect(database.sql.options.setup).toBe(BACKEND_HEAP_SETUP);
      const pid = (await plain<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      // Only where the server's processes can be read (the same machine), and where its allocator
      // gives memory back at all (glibc's malloc does, at the end of each such statement).
      if (!fs.existsSync(`/proc/${pid}/stat`)) return ctx.skip();
      const without = await sortFaults(plain);
      if (without < 50) return ctx.skip();
      expect(await sortFaults(database.sql)).toBeLessThan(without / 10);
    } finally {
      await plain.end();
      await database.close();
    }
  });
});
