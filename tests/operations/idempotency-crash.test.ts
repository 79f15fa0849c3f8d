// Idempotency-Key across a crash, with a real `node dist/server.js` on a server Postgres. The request
// is held in the middle of its effect (the gig written, its event waiting) by a table lock this test
// takes from its own connection, and the test waits until Postgres shows it waiting there. Then:
// - the server is killed (SIGKILL): nothing is kept; a retry gets 409 (with Retry-After) while the
//   dead attempt's hold on the key lasts (IDEMPOTENCY_LOCK_TIMEOUT), then runs once (not a second
//   gig); the retry after it replays;
// - or the client is cut off instead and the server finishes: the retry replays, one gig.
// Server Postgres only: the locks and pg_stat_activity are what make the moment exact.
import { afterAll, describe, expect, it, vi } from 'vitest';
import postgres from 'postgres';
import { freshServerDatabase } from '../helpers/server.ts';
import { killRunningServers, spawnServer, waitUntilHealthy, type ServerProcess } from '../helpers/server-process.ts';
import { openDatabase } from '../../db/client.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';

/** POSTs a gig with an Idempotency-Key; resolves with the status, or 'cut' if the connection died. */
async function postGig(url: string, apiKey: string, key: string, title: string, signal?: AbortSignal): Promise<number | 'cut'> {
  try {
    const res = await fetch(`${url}/api/gigs`, {
      signal,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ title }),
    });
    await res.text();
    return res.status;
  } catch {
    return 'cut';
  }
}

/**
 * Waits until a server connection waits to insert into `table`: the request's own write, not the
 * event relay's update of an earlier event, which waits on the same lock.
 */
async function waitForInsertWait(admin: postgres.Sql, table: string) {
  await vi.waitFor(
    async () => {
      const rows = await admin`
        select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where not l.granted and l.relation = ${table}::regclass and a.datname = current_database()
          and a.query ilike 'insert into%'`;
      expect(rows.length).toBeGreaterThan(0);
    },
    { timeout: 60_000, interval: 50 },
  );
}

/** Connections to the test database (other than this one) running a statement or in a transaction. */
async function busyBackends(admin: postgres.Sql): Promise<number> {
  const rows = await admin`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`;
  return rows[0]!.n as number;
}

describe.runIf(process.env.DATABASE_URL)('Idempotency-Key when a request is cut off in the middle of its effect', () => {
  afterAll(() => killRunningServers());

  for (const cut of ['the server is killed', 'the client goes away'] as const) {
    it(`${cut}: the retry ${cut === 'the server is killed' ? 'runs once' : 'replays'}, and one gig exists`, async () => {
      const fresh = await freshServerDatabase(process.env.DATABASE_URL!);
      const database = await openDatabase({ databaseUrl: fresh.url, max: 2 });
      const env = { DATABASE_URL: fresh.url, LOG_LEVEL: 'warn', IDEMPOTENCY_LOCK_TIMEOUT: '1' };
      let server: ServerProcess = await spawnServer(env);
      await waitUntilHealthy(server);
      const holder = postgres(fresh.url, { max: 1, onnotice: () => {} });
      const admin = postgres(fresh.url, { max: 1, onnotice: () => {} });
      try {
        const { apiKey } = await createUserWithKey({ db: database.db }, 'Crash Tester');
        const title = `Crash: ${cut}`;
        const count = async () => Number((await admin`select count(*)::int as n from gigs where title = ${title}`)[0]!.n);

        // The gig's event insert waits behind this lock: the gig row is written, nothing committed.
        let unlock!: () => void;
        const held = new Promise<void>((locked) => {
          void holder
            .begin(async (sql) => {
              await sql`lock table events in share mode`;
              locked();
              await new Promise<void>((resolve) => {
                unlock = resolve;
              });
            })
            .catch(() => {});
        });
        await held;
        const client = new AbortController();
        const first = postGig(server.url, apiKey, 'crash-1', title, client.signal);
        await waitForInsertWait(admin, 'events');

        if (cut === 'the server is killed') {
          server.child.kill('SIGKILL');
          await server.exited;
          expect(await first).toBe('cut');
          unlock();
          // The dead server's backend finds its client gone once it can go on, and rolls back.
          await vi.waitFor(async () => expect(await busyBackends(admin)).toBe(0), { timeout: 60_000, interval: 100 });
          expect(await count()).toBe(0);
          server = await spawnServer(env);
          await waitUntilHealthy(server);
          // The dead attempt still holds the key for a moment: 409 until its hold times out.
          let status = await postGig(server.url, apiKey, 'crash-1', title);
          for (let i = 0; status === 409 && i < 20; i++) {
            await new Promise((r) => setTimeout(r, 200));
            status = await postGig(server.url, apiKey, 'crash-1', title);
          }
          expect(status).toBe(201);
        } else {
          client.abort();
          expect(await first).toBe('cut');
          unlock();
          await vi.waitFor(async () => expect(await count()).toBe(1), { timeout: 60_000, interval: 100 });
        }
        expect(await count()).toBe(1);

        const replay = await fetch(`${server.url}/api/gigs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'crash-1' },
          body: JSON.stringify({ title }),
        });
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(await count()).toBe(1);
      } finally {
        server.child.kill('SIGKILL');
        await Promise.all([holder.end({ timeout: 0 }), admin.end({ timeout: 1 })]);
        await database.close();
        await fresh.drop();
      }
    }, 120_000);
  }
});
