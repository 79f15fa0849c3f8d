// Settings the database runs with. Embedded PGlite's shared_buffers: 16MB by default
// (PGLITE_SHARED_BUFFERS), so the server's resident set does not carry PGlite's own 128MB of
// buffers; a bad size stops the start. A server Postgres: JIT off on every connection, and time
// limits on a statement and on a transaction left idle (DATABASE_STATEMENT_TIMEOUT_MS,
// DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS).
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.ts';
import { rowsOf } from '../../db/sql.ts';
import { loadConfig } from '../../src/config.ts';
import { startTestServer } from '../helpers/server.ts';

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

describe('the database time limits', () => {
  it('are 30 s for a statement and 60 s for an idle transaction unless set, in ms, 0 for none', () => {
    expect(loadConfig({}).databaseTimeLimits).toEqual({ statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000 });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '0', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '1500' }).databaseTimeLimits).toEqual({
      statementTimeoutMs: 0,
      idleInTransactionTimeoutMs: 1500,
    });
  });

  it.each(['-1', '1.5', '30s'])('refuse %j, naming the variable', (bad) => {
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: bad })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS must be/);
    expect(() => loadConfig({ DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: bad })).toThrow(/DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS must be/);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('a server Postgres', () => {
  const shown = async (db: Parameters<typeof rowsOf>[0], setting: 'statement_timeout' | 'idle_in_transaction_session_timeout') =>
    (await rowsOf<Record<string, string>>(db, sql.raw(`show ${setting}`)))[0]![setting];

  it("sets the time limits on the app's connections, by default and as configured, and ends a statement over its limit", async () => {
    const byDefault = await startTestServer();
    try {
      expect(await shown(byDefault.db, 'statement_timeout')).toBe('30s');
      expect(await shown(byDefault.db, 'idle_in_transaction_session_timeout')).toBe('1min');
    } finally {
      await byDefault.close();
    }
    const set = await startTestServer({ DATABASE_STATEMENT_TIMEOUT_MS: '300', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2500' });
    try {
      expect(await shown(set.db, 'statement_timeout')).toBe('300ms');
      expect(await shown(set.db, 'idle_in_transaction_session_timeout')).toBe('2500ms');
      // Inside a transaction too (the request transactions of Idempotency-Key run there).
      await set.db.transaction(async (tx) => expect(await shown(tx, 'statement_timeout')).toBe('300ms'));
      await expect(set.db.execute(sql`select pg_sleep(2)`)).rejects.toMatchObject({ cause: { code: '57014' } });
    } finally {
      await set.close();
    }
  });

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
});
