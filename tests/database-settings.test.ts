// Settings the database runs with. Embedded PGlite's shared_buffers: 16MB by default
// (PGLITE_SHARED_BUFFERS), so the server's resident set does not carry PGlite's own 128MB of
// buffers; a bad size stops the start. A server Postgres: JIT off on every connection.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client.ts';
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
});
