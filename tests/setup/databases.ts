// vitest globalSetup: one migrated database (the app's migrations and pg-boss's schema) made once
// per run, which every test file's database starts as a copy of, instead of migrating its own.
// On a server Postgres (DATABASE_URL) it is a database cloned with CREATE DATABASE ... TEMPLATE;
// on embedded PGlite, a dump of the data directory that each in-memory PGlite loads.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase, type Database } from '../../db/client.ts';
import { prepareDatabase as prepare } from '../../scripts/pglite-template.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** The migrated template: a database name on the Postgres at DATABASE_URL, or a PGlite dump's file. */
    testDatabaseTemplate: { postgres: string } | { pgliteDump: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    // A name of this run's own: two runs on one server neither share nor drop each other's.
    const name = `gm_template_${randomBytes(6).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString(), max: 2 });
    try {
      await prepare(database);
    } finally {
      await database.close(); // a template with a connection open cannot be copied
    }
    project.provide('testDatabaseTemplate', { postgres: name });
    return async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  }
  const database = await openDatabase({});
  let dump: Blob;
  try {
    await prepare(database);
    dump = await (database as Extract<Database, { kind: 'pglite' }>).pglite.dumpDataDir('none');
  } finally {
    await database.close();
  }
  const file = path.join(os.tmpdir(), `gm-test-template-${process.pid}-${randomBytes(4).toString('hex')}.tar`);
  fs.writeFileSync(file, new Uint8Array(await dump.arrayBuffer()));
  project.provide('testDatabaseTemplate', { pgliteDump: file });
  return async () => {
    fs.rmSync(file, { force: true });
  };
}
