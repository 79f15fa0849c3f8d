// Opens the database: embedded PGlite under DATA_DIR, or a server Postgres with DATABASE_URL.
// Both speak the same Drizzle schema and migrations; callers only see `Database`.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { pgliteTemplatePath } from './pglite-template-file.ts';
import * as schema from './schema.ts';
import { rowsOf } from './sql.ts';
import { unpipelined } from './unpipelined.ts';

import type { Db } from './types.ts';

export type { Db, Executor, Schema, Tx } from './types.ts';

export type Database =
  | { kind: 'pglite'; db: Db; pglite: PGlite; close(): Promise<void> }
  | {
      kind: 'postgres';
      db: Db;
      sql: postgres.Sql;
      url: string;
      /** Where LISTEN and migrations connect: `url` itself, unless that goes through a transaction-mode pooler (OpenOptions.directUrl). */
      directUrl: string;
      close(): Promise<void>;
    };

// From db/ when run from source, from dist/ when bundled (scripts/server-bundle.ts): both sit
// directly in the checkout's root, so ../db/migrations is the same folder from either.
const migrationsFolder = path.join(import.meta.dirname, '..', 'db', 'migrations');

export { PGLITE_TEMPLATE_NAME } from './pglite-template-file.ts';
const pgliteTemplateFile = pgliteTemplatePath(path.join(import.meta.dirname, '..'));

/** Whether a new data directory would start from the prepared template (else from PGlite's initdb). */
export function hasPgliteTemplate(): boolean {
  return fs.existsSync(pgliteTemplateFile);
}

export interface OpenOptions {
  databaseUrl?: string;
  /** A directory for PGlite's files, or undefined for an in-memory database (tests). */
  dataDir?: string;
  /** Pool size for postgres.js. */
  max?: number;
  /** A PGlite data directory's dump (PGlite's dumpDataDir) to start from instead of an empty cluster: the tests' migrated template. */
  loadDataDir?: Blob;
  /** PGlite's shared_buffers (a Postgres size, e.g. `16MB`); its own default (128MB) when unset. */
  pgliteSharedBuffers?: string;
  /** A server Postgres's statement_timeout and idle_in_transaction_session_timeout on every connection, in ms (0: none); the server's own when unset. */
  timeLimits?: { statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
  /**
   * Set when databaseUrl goes through a pooler in transaction mode (PgBouncer's pool_mode =
   * transaction), which hands each transaction whichever server connection is free: the same
   * database reached directly, for what lives on one connection (LISTEN, the migrations' session
   * lock). The pool on databaseUrl then names no prepared statement (a statement prepared on one
   * server connection is unknown on the next), pipelines no statement behind another
   * (db/unpipelined.ts) and sends no setting at connect (PgBouncer refuses them; set them on the
   * database: docs/guide/production.md, "Through a connection pooler").
   */
  directUrl?: string;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pooled = options.directUrl !== undefined;
    const client = postgres(options.databaseUrl, {
      max: options.max ?? 10,
      onnotice: () => {},
      // JIT off: it compiles a query whose estimated cost passes jit_above_cost, which an API's
      // short queries never repay (a discovery search over many gigs spent most of its time on it).
      // The time limits: a runaway statement, or a transaction its caller forgot, ends instead of
      // holding a connection and its locks for good.
      connection: {
        application_name: 'gigmarket',
        ...(!pooled && { jit: 'off' }),
        ...(!pooled &&
          options.timeLimits && {
            statement_timeout: options.timeLimits.statementTimeoutMs,
            idle_in_transaction_session_timeout: options.timeLimits.idleInTransactionTimeoutMs,
          }),
      },
      ...(pooled && { prepare: false }),
    });
    // Through a transaction pooler, no statement is pipelined behind another (db/unpipelined.ts).
    const sql = pooled ? unpipelined(client) : client;
    const db = drizzlePostgres(sql, { schema }) as unknown as Db;
    const directUrl = options.directUrl ?? options.databaseUrl;
    return { kind: 'postgres', db, sql, url: options.databaseUrl, directUrl, close: () => client.end({ timeout: 5 }) };
  }
  // A new data directory starts as a copy of the prepared template when the build made one: PGlite's
  // initdb and every migration, done once at install instead of at each first start.
  const loadDataDir =
    options.loadDataDir ??
    (options.dataDir && isNewDataDir(options.dataDir) && hasPgliteTemplate() ? new Blob([fs.readFileSync(pgliteTemplateFile)]) : undefined);
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  const pglite = await PGlite.create(options.dataDir ?? 'memory://', {
    extensions: { vector },
    ...(loadDataDir ? { loadDataDir } : {}),
    ...(options.pgliteSharedBuffers ? { postgresqlconf: `shared_buffers = ${options.pgliteSharedBuffers}` } : {}),
  });
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  return { kind: 'pglite', db, pglite, close: () => pglite.close() };
}

/** True when PGlite has never created a database in this directory (its first start runs initdb). */
export function isNewDataDir(dataDir: string): boolean {
  return !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** The time (folderMillis) of the latest migration the database has applied; -Infinity for none. */
async function lastAppliedMigration(database: Database): Promise<number> {
  const [table] = await rowsOf<{ name: string | null }>(database.db, sql`select to_regclass('drizzle.__drizzle_migrations')::text as name`);
  const [last] = table?.name
    ? await rowsOf<{ at: string | null }>(database.db, sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`)
    : [];
  return last?.at ? Number(last.at) : Number.NEGATIVE_INFINITY;
}

/** This version's latest migration (its folderMillis), as migrationFiles last read it. */
let newestMigration: number | undefined;

/** This version's migrations, each file read whole and hashed (readMigrationFiles). */
function migrationFiles(): ReturnType<typeof readMigrationFiles> {
  const migrations = readMigrationFiles({ migrationsFolder });
  newestMigration = Math.max(Number.NEGATIVE_INFINITY, ...migrations.map((m) => m.folderMillis));
  return migrations;
}

/** How many of db/migrations the database has yet to apply, by the migrator's own rule (newer than its latest). */
export async function pendingMigrations(database: Database): Promise<{ pending: number; total: number }> {
  const migrations = migrationFiles();
  const latest = await lastAppliedMigration(database);
  return { pending: migrations.filter((m) => m.folderMillis > latest).length, total: migrations.length };
}

/**
 * Whether every migration this version has is applied (a newer version's too is fine), by
 * pendingMigrations's rule. This version's latest is the one the start read (pendingMigrations), so
 * a readiness probe, every few seconds, reads only the database.
 */
export async function migrationsApplied(database: Database): Promise<boolean> {
  if (newestMigration === undefined) migrationFiles();
  return (await lastAppliedMigration(database)) >= newestMigration!;
}

/** Applies db/migrations. On a server, an advisory lock keeps concurrent starts from racing. */
export async function migrate(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await database.pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
    await migratePglite(database.db as never, { migrationsFolder });
    return;
  }
  // On connections of their own, without the pool's time limits: building an index on a large
  // table, or waiting for another process's migrations, may take minutes. The lock lives on one
  // reserved connection while the migrator uses the other, so never through a transaction pooler.
  const client = postgres(database.directUrl, {
    max: 2,
    onnotice: () => {},
    connection: { application_name: 'gigmarket-migrate', statement_timeout: 0, idle_in_transaction_session_timeout: 0 },
  });
  try {
    const lock = await client.reserve();
    try {
      await lock`select pg_advisory_lock(hashtext('gigmarket:migrate'))`;
      await migratePostgres(drizzlePostgres(client), { migrationsFolder });
    } finally {
      await lock`select pg_advisory_unlock(hashtext('gigmarket:migrate'))`.catch(() => {});
      lock.release();
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** True when a trivial query answers. */
export async function ping(database: Database): Promise<boolean> {
  try {
    await database.db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
