// The embedded database a new DATA_DIR starts from: an empty PGlite cluster with every migration and
// pg-boss's schema applied, dumped into dist/pglite-template.tar.gz at install (and by `npm start`
// when db/migrations or the dependencies are newer: pglite-template-state.ts). Loading it
// (db/client.ts) takes a first start on a fresh machine from PGlite's initdb plus every migration
// to unpacking 5 MB.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { migrate, openDatabase, type Database } from '../db/client.ts';
import { pgliteTemplatePath } from '../db/pglite-template-file.ts';
import { startJobs } from '../src/job-system/boss.ts';
import { PROJECT_ROOT } from '../src/project-root.ts';

/** A new database made ready to serve: the migrations, then pg-boss's own schema (its start creates it; no queue is made). */
export async function prepareDatabase(database: Database): Promise<void> {
  await migrate(database);
  const jobs = await startJobs(database, pino({ level: 'silent' }), []);
  await jobs.stop();
}

/** Builds dist/pglite-template.tar.gz (a few seconds); returns its path. */
export async function buildPgliteTemplate(root = PROJECT_ROOT): Promise<string> {
  const database = await openDatabase({});
  if (database.kind !== 'pglite') throw new Error('the template is made on an in-memory PGlite');
  let dump: Blob;
  try {
    await prepareDatabase(database);
    dump = await database.pglite.dumpDataDir('gzip');
  } finally {
    await database.close();
  }
  const file = pgliteTemplatePath(root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Beside its final name, then renamed: a server starting meanwhile reads the old one or the new.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, new Uint8Array(await dump.arrayBuffer()));
  fs.renameSync(temporary, file);
  return file;
}
