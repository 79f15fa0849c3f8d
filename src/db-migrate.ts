// `npm run db:migrate`: applies db/migrations to DATABASE_URL, or to PGlite under DATA_DIR.
import { loadConfig } from './config.ts';
import { migrate, openDatabase } from '../db/client.ts';
import { acquireDataLock } from './data-lock.ts';

const config = loadConfig();
// PGlite under DATA_DIR is one process's database: refuse while a server holds it.
const lock = config.databaseUrl ? undefined : acquireDataLock(config.dataDir);
// One connection: migrate() opens connections of its own on a server.
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  pgliteSharedBuffers: config.pgliteSharedBuffers,
  directUrl: config.databaseDirectUrl,
  max: 1,
});
try {
  await migrate(database);
  console.log(`migrations applied (${database.kind})`);
} finally {
  await database.close();
  lock?.release();
}
