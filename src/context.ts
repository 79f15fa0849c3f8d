// What handlers and jobs depend on: handed down explicitly, never imported as globals.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from '../db/client.ts';
import type { JobSystem } from '../jobs/boss.ts';
import type { AnyPaymentProvider } from './payments/index.ts';
import type { ApiKeyCache } from './auth/key-cache.ts';

export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  jobs: JobSystem;
  payments: AnyPaymentProvider;
  log: FastifyBaseLogger;
  /** Active API keys in memory while revocations are heard (src/auth/key-cache.ts). */
  apiKeys: ApiKeyCache;
  /** The secret that signs session cookies (SESSION_SECRET, else generated once and shared via the database). */
  sessionSecret: string;
}
