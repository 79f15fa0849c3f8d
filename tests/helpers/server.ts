// A real server on a real database for each test file: PGlite in memory, or, when DATABASE_URL is
// set, a fresh database on that Postgres server (dropped afterwards). Either starts as a copy of
// the run's migrated template (tests/setup/databases.ts). Requests go over HTTP.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import createClient from 'openapi-fetch';
import postgres from 'postgres';
import { afterAll, beforeAll, inject } from 'vitest';
import type { paths } from '../../src/generated/api.d.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { allJobs } from '../../jobs/index.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import { specValidation } from './spec-validator.ts';

export type ApiClient = ReturnType<typeof createClient<paths>>;

/** A user made by TestServer.user(): their id, an API key, and a client that sends it. */
export type TestUser = Awaited<ReturnType<TestServer['user']>>;

export interface TestServer {
  url: string;
  runtime: Runtime;
  config: Config;
  /** The database the server uses, for asserting state after a request. */
  db: Runtime['database']['db'];
  /** The server Postgres database's URL when the tests run on one; undefined on PGlite. */
  databaseUrl: string | undefined;
  /** A client with no credentials. */
  anonymous: ApiClient;
  /** A client that sends this API key (as a Bearer token, or as x-api-key). */
  client(apiKey: string, header?: 'bearer' | 'x-api-key'): ApiClient;
  /** A new user with an API key, made the way the operator CLI makes them. */
  user(name?: string): Promise<{ userId: string; apiKey: string; apiKeyId: string; api: ApiClient }>;
  /** New users with API keys, one per name, made in order. */
  users<const Names extends string[]>(...names: Names): Promise<{ [K in keyof Names]: TestUser }>;
  close(): Promise<void>;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

type Template = { postgres: string } | { pgliteDump: string } | undefined;
let pgliteDump: Blob | undefined;

/** The run's migrated template's PGlite dump, read once per worker; undefined on Postgres or outside vitest's run. */
export function pgliteTemplate(): Blob | undefined {
  const template = inject('testDatabaseTemplate') as Template;
  if (!template || !('pgliteDump' in template)) return undefined;
  pgliteDump ??= new Blob([new Uint8Array(fs.readFileSync(template.pgliteDump))]);
  return pgliteDump;
}

/** The run's migrated template database on the Postgres server, if there is one. */
function postgresTemplate(): string | undefined {
  const template = inject('testDatabaseTemplate') as Template;
  return template && 'postgres' in template ? template.postgres : undefined;
}

/**
 * The test's own database, without a server: a fresh one on the Postgres server when DATABASE_URL
 * is set, else PGlite in memory; a copy of the run's migrated template (empty outside vitest's run).
 * close() closes it and drops the server's.
 */
export async function openTestDatabase(): Promise<{ database: Database; close(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  const fresh = adminUrl ? await migratedServerDatabase(adminUrl) : undefined;
  const database = fresh ? await openDatabase({ databaseUrl: fresh.url, max: 2 }) : await openDatabase({ loadDataDir: pgliteTemplate() });
  return {
    database,
    async close() {
      await database.close();
      await fresh?.drop();
    },
  };
}

/**
 * A new database on the Postgres server at adminUrl, migrated: a copy of the run's template (else
 * empty, for the server to migrate at its start). drop() removes it.
 */
export function migratedServerDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  return freshServerDatabase(adminUrl, postgresTemplate());
}

/** A new database on the Postgres server at adminUrl, empty or a copy of `template`; drop() removes it. */
export async function freshServerDatabase(adminUrl: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gm_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/**
 * `publicHost`: the host name of PUBLIC_URL and of `url` (127.0.0.1 by default); `localhost` for a
 * browser's WebAuthn, which takes a domain, not an address, as the relying party.
 */
export async function startTestServer(env: Record<string, string> = {}, publicHost = '127.0.0.1'): Promise<TestServer> {
  const serverDb = process.env.DATABASE_URL ? await migratedServerDatabase(process.env.DATABASE_URL) : undefined;
  // The port is chosen before start, so that PUBLIC_URL (OAuth callbacks, onboarding links) is right.
  const port = await freePort();
  const url = `http://${publicHost}:${port}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    PUBLIC_URL: url,
    ...env,
    ...(serverDb ? { DATABASE_URL: serverDb.url } : {}),
  });
  // As the runtime opens it (src/runtime.ts), with the pool smaller.
  const database = await openDatabase({
    databaseUrl: serverDb?.url,
    max: 5,
    timeLimits: config.databaseTimeLimits,
    loadDataDir: serverDb ? undefined : pgliteTemplate(),
  });
  const runtime = await startRuntime(config, { jobDefinitions: allJobs, logger: false, database });
  await runtime.app.listen({ port, host: '127.0.0.1' });

  const make = (headers: Record<string, string>) => {
    const c = createClient<paths>({ baseUrl: url, headers });
    c.use(specValidation);
    return c;
  };
  const client = (apiKey: string, header: 'bearer' | 'x-api-key' = 'bearer') =>
    make(header === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey });

  const user = async (name = 'Test User') => {
    const created = await createUserWithKey({ db: database.db }, name);
    return { ...created, api: client(created.apiKey) };
  };

  return {
    url,
    runtime,
    config,
    db: database.db,
    databaseUrl: serverDb?.url,
    anonymous: make({}),
    client,
    user,
    async users<const Names extends string[]>(...names: Names) {
      const made: TestUser[] = [];
      for (const name of names) made.push(await user(name));
      return made as { [K in keyof Names]: TestUser };
    },
    async close() {
      await runtime.close();
      await serverDb?.drop();
    },
  };
}

/**
 * The test file's server: started before its tests (beforeAll, in the order the call stands among
 * the file's hooks) and closed after them. The handle forwards to that server, so tests and later
 * hooks use `server.db`, `server.user()` as on the server itself; it is not usable before then.
 */
export function testFileServer(env: Record<string, string> | (() => Record<string, string>) = {}): TestServer {
  let current: TestServer | undefined;
  beforeAll(async () => {
    current = await startTestServer(typeof env === 'function' ? env() : env);
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!current) throw new Error('the test server starts in beforeAll: use it in tests and hooks, not at import');
      return Reflect.get(current, key);
    },
  });
}
