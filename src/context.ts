// The one context: everything a request handler, a service or a job needs from the running
// process, built once at start (src/runtime.ts) and handed down explicitly, never imported as a
// global. A function that needs less says so with `Pick<Context, ...>`, so it can be called with
// just that (tests, the CLI) and still takes the same object everywhere else.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from '../db/client.ts';
import type { JobSystem } from './job-system/boss.ts';
import type { AnyPaymentProvider } from './payments/index.ts';
import type { ApiKeyCache } from './auth/key-cache.ts';
import type { FileStore } from './storage/file-store.ts';
import type { Metrics } from './metrics/registry.ts';

/** Where this process is in its life: draining once SIGTERM came (src/shutdown.ts), when readiness answers 503. */
export interface Lifecycle {
  draining: boolean;
}

export interface Context {
  config: Config;
  database: Database;
  /** Drizzle over `database`: what services and repositories query through. */
  db: Db;
  /** pg-boss: services enqueue through src/job-system/queues.ts; the health check asks it. */
  jobs: JobSystem;
  payments: AnyPaymentProvider;
  log: FastifyBaseLogger;
  /** Active API keys in memory while revocations are heard (src/auth/key-cache.ts). */
  apiKeys: ApiKeyCache;
  /** Uploaded files (resumes), in the database by default (src/storage/file-store.ts). */
  files: FileStore;
  /** The secret that signs session cookies (SESSION_SECRET, else generated once and shared via the database). */
  sessionSecret: string;
  /** Prometheus metrics: what the process counts as it goes (src/metrics/registry.ts). */
  metrics: Metrics;
  lifecycle: Lifecycle;
}
