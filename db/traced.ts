// The database with a span around each statement and each transaction, for traces (src/tracing/):
// a second Drizzle over the same client, seen through a thin wrapper that times the client's public
// methods Drizzle's drivers call to run SQL: postgres.js's `unsafe` (then `.values()` or awaited),
// `begin` and `savepoint`; PGlite's `query` and `transaction`. Everything else of the client is its
// own, but for postgres.js's tagged template, which throws rather than run untraced. The
// statement's text reaches the tracer, never its parameters. Used only while tracing is on:
// otherwise the runtime keeps the database openDatabase made, untouched.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import type { Database, Db } from './client.ts';
import * as schema from './schema.ts';
import { pendingQuery, replacing } from './wrapped-client.ts';

/** What times the statements: the app's tracer (src/tracing/otel.ts). */
export interface QueryTracer {
  /** Runs one statement (`run` sends it) inside a span that names its text. */
  statement<T>(text: string, run: () => PromiseLike<T>): Promise<T>;
  /** Runs a whole transaction inside a span (its statements' spans are its children). */
  transaction<T>(run: () => Promise<T>): Promise<T>;
}

/** The same database, its `db` timed by `tracer`; its other clients (pg-boss's, LISTEN's) are left as they are. */
export function tracedDatabase(database: Database, tracer: QueryTracer): Database {
  if (database.kind === 'pglite') {
    const db = drizzlePglite({ client: tracedPglite(database.pglite, tracer), schema }) as unknown as Db;
    return { ...database, db };
  }
  const db = drizzlePostgres({ client: tracedPostgres(database.sql, tracer), schema }) as unknown as Db;
  return { ...database, db };
}

type PostgresClient = postgres.Sql | postgres.TransactionSql;

/** postgres.js's client: each statement sent inside its span when its pending query is first awaited (db/wrapped-client.ts). */
function tracedPostgres<C extends PostgresClient>(client: C, tracer: QueryTracer): C {
  const unsafe = (text: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
    pendingQuery((values) =>
      tracer.statement(text, () => {
        const query = client.unsafe(text, parameters, options);
        return values ? query.values() : query;
      }),
    );
  const begin = (run: (tx: postgres.TransactionSql) => Promise<unknown>) =>
    tracer.transaction(() => (client as postgres.Sql).begin((tx) => run(tracedPostgres(tx, tracer))));
  const savepoint = (run: (tx: postgres.TransactionSql) => Promise<unknown>) =>
    (client as postgres.TransactionSql).savepoint((tx) => run(tracedPostgres(tx, tracer)));
  return replacing(client, { unsafe, begin, savepoint }, 'db/traced.ts');
}

type PgliteClient = PGlite | Transaction;

function tracedPglite<C extends PgliteClient>(client: C, tracer: QueryTracer): C {
  const replaced = {
    query: (text: string, parameters?: unknown[], options?: object) =>
      tracer.statement(text, () => client.query(text, parameters, options)),
    transaction: (run: (tx: Transaction) => Promise<unknown>) =>
      tracer.transaction(() => (client as PGlite).transaction((tx) => run(tracedPglite(tx, tracer)))),
  };
  return replacing(client, replaced, 'db/traced.ts');
}
