// The traced database (db/traced.ts), under a tracer that records what it is handed: every way the
// app runs SQL through Drizzle (a query builder, db.execute, a relational query, a prepared query,
// a transaction, a nested one, a statement that fails) answers as on the database itself, and each
// statement reaches the tracer as its text, inside the span of its transaction, its parameters
// never; a statement is sent once however often it is awaited, and a tagged template on the client
// fails rather than go untraced. On PGlite in the embedded run, on Postgres in the server run.
import { AsyncLocalStorage } from 'node:async_hooks';
import { eq, sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import { findVisibleGig, insertGig } from '../../db/repositories/gigs.ts';
import { rowsOf } from '../../db/sql.ts';
import { gigs } from '../../db/schema.ts';
import { tracedDatabase, type QueryTracer } from '../../db/traced.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import { newId } from '../../src/ids.ts';
import { openTestDatabase } from '../helpers/server.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';
import { askedThrice } from '../helpers/pending-query.ts';

/** What the tracer saw: each statement's text, and the transaction it ran in (by number), if any. */
interface Seen {
  text: string;
  transaction: number | undefined;
  failed: boolean;
}

function recordingTracer() {
  const seen: Seen[] = [];
  const inTransaction = new AsyncLocalStorage<number>();
  let transactions = 0;
  const tracer: QueryTracer = {
    async statement(text, run) {
      const entry = { text, transaction: inTransaction.getStore(), failed: false };
      seen.push(entry);
      try {
        return await run();
      } catch (err) {
        entry.failed = true;
        throw err;
      }
    },
    transaction(run) {
      return inTransaction.run(++transactions, run);
    },
  };
  return { tracer, seen, transactions: () => transactions };
}

let opened: { database: Database; close(): Promise<void> };
let userId: string;
beforeAll(async () => {
  opened = await openTestDatabase();
  userId = (await createUserWithKey({ db: opened.database.db }, 'Traced')).userId;
});
afterAll(async () => {
  await opened.close();
});

describe('the traced database', () => {
  it('answers as the database does, handing the tracer each statement and transaction', async () => {
    const { tracer, seen, transactions } = recordingTracer();
    const { db } = tracedDatabase(opened.database, tracer);
    const title = `Secret title ${newId()}`;

    const gig = await insertGig(db, userId, { id: newId(), title, status: 'open' });
    expect(gig.title).toBe(title);
    const [read] = await db.select().from(gigs).where(eq(gigs.id, gig.id));
    expect(read!.title).toBe(title);
    expect((await rowsOf<{ n: number }>(db, sql`select ${41}::int + 1 as n`))[0]!.n).toBe(42);
    expect((await db.query.gigs.findFirst({ where: eq(gigs.id, gig.id) }))?.id).toBe(gig.id);
    expect((await findVisibleGig(db, userId, gig.id))?.id).toBe(gig.id);
    expect(seen.every((s) => s.transaction === undefined)).toBe(true);
    const outside = seen.length;

    const inner = await db.transaction(async (tx) => {
      await tx
        .update(gigs)
        .set({ title: `${title} (edited)` })
        .where(eq(gigs.id, gig.id));
      // A nested transaction (a savepoint) that rolls back leaves the outer one going.
      await expect(
        tx.transaction(async (nested) => {
          await nested.update(gigs).set({ title: 'rolled back' }).where(eq(gigs.id, gig.id));
          throw new Error('undo the savepoint');
        }),
      ).rejects.toThrow('undo the savepoint');
      return (await findVisibleGig(tx, userId, gig.id))?.title;
    });
    expect(inner).toBe(`${title} (edited)`);
    expect(transactions()).toBe(1);
    const inTransaction = seen.slice(outside);
    expect(inTransaction.length).toBeGreaterThanOrEqual(3);
    expect(inTransaction.filter((s) => s.text.startsWith('update "gigs"')).every((s) => s.transaction === 1)).toBe(true);

    // A failing statement fails as it would, and the tracer sees it fail.
    await expect(db.execute(sql`select * from no_such_table`)).rejects.toThrow(/no_such_table/);
    expect(seen.at(-1)).toMatchObject({ text: 'select * from no_such_table', failed: true });

    // Text only: the values were parameters.
    expect(seen.some((s) => s.text.startsWith('insert into "gigs"'))).toBe(true);
    expect(seen.filter((s) => s.text.includes(title) || s.text.includes('rolled back') || s.text.includes('41'))).toEqual([]);
  });

  // postgres.js's pending queries are the wrapper's own on a server Postgres only (PGlite's query is a promise).
  it.runIf(!EMBEDDED_RUN)('sends a statement once however often it is awaited, and refuses a tagged template', async () => {
    const { tracer, seen } = recordingTracer();
    const client = (tracedDatabase(opened.database, tracer).db as unknown as { $client: postgres.Sql }).$client;
    expect((await askedThrice(client.unsafe<{ n: number }[]>('select 1 as n'))).map((rows) => rows[0]!.n)).toEqual([1, 1, 1]);
    const asArrays = client.unsafe('select 2 as n');
    expect([await asArrays.values(), await asArrays.values()].map((rows) => rows[0])).toEqual([[2], [2]]);
    expect(seen.map((s) => s.text)).toEqual(['select 1 as n', 'select 2 as n']);

    // sql`…` on the client would run past the tracer: it fails instead of going untraced.
    expect(() => client`select 3`).toThrow('db/traced.ts: a tagged template (sql`…`) would bypass this wrapper');
    expect(seen).toHaveLength(2);
  });

  it('leaves the database it wraps untraced', async () => {
    const { tracer, seen } = recordingTracer();
    tracedDatabase(opened.database, tracer);
    await opened.database.db.select().from(gigs).limit(1);
    expect(seen).toEqual([]);
  });
});
