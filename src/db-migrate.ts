// `npm run db:migrate`: applies db/migrations to DATABASE_URL, or to PGlite under DATA_DIR.
import { loadConfig } from './config.ts';
import { migrate, openDatabase } from '../db/client.ts';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, max: 1 });
try {
  await migrate(database);
  console.log(`migrations applied (${database.kind})`);
} finally {
  await database.close();
}
