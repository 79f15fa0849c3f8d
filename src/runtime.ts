// Starts everything a server process needs, in order, and stops it in reverse.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from './config.ts';
import { hasPgliteTemplate, isNewDataDir, migrate, openDatabase, pendingMigrations, type Database } from '../db/client.ts';
import { getOrCreateSetting } from '../db/repositories/settings.ts';
import { buildApp } from './app.ts';
import { createJobSystem, type JobDefinition, type JobSystem } from './job-system/boss.ts';
import { WEBHOOK_DELIVERY_QUEUE } from './job-system/queues.ts';
import { closeWebhookConnections } from './webhooks/connections.ts';
import type { Context, Lifecycle } from './context.ts';
import { startEventRelay, type EventRelay } from './services/event-relay.ts';
import { eventSubscribers } from './services/event-subscribers.ts';
import { createLogDestination, loggerOptions } from './http/logging.ts';
import { acquireDataLock } from './data-lock.ts';
import { createPaymentProvider } from './payments/index.ts';
import { postgresFileStore } from './storage/file-store.ts';
import { ApiKeyCache } from './auth/key-cache.ts';
import { checkDatabaseConnection, refuseUnsafeSettings } from './startup-checks.ts';
import { createMetrics, type Metrics } from './metrics/registry.ts';
import { registerDatabaseGauges } from './metrics/database-gauges.ts';
import { startMetricsServer } from './metrics/http.ts';
import { startTracing } from './tracing/index.ts';
import { tracedDatabase } from '../db/traced.ts';
import { TimeLimitExceeded, withinTime } from './time-limit.ts';

export interface Runtime {
  app: FastifyInstance;
  database: Database;
  jobs: JobSystem;
  /** Active API keys in memory, live while this process hears revocations. */
  apiKeys: ApiKeyCache;
  /** Hands written events to their subscribers (src/services/event-relay.ts). */
  relay: EventRelay;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** A drain's first step (src/shutdown.ts): readiness answers 503 from now on, and no new job is taken. */
  drain(): void;
  /**
   * Drains, closes the server (no new connection; the requests in flight finish), stops pg-boss
   * (its running jobs given until `jobsDeadline`, a Date.now() time, else 10 s), then closes the
   * webhook connections and the database and sends the last traces, leaving them unfinished at
   * `deadline` (a Date.now() time; none: they take what they take).
   */
  close(options?: { jobsDeadline?: number; deadline?: number }): Promise<void>;
  /** Writes out the log lines still waiting (for a second at most: the reader may be gone). */
  flushLogs(): Promise<void>;
}

interface RuntimeOptions {
  /**
   * The jobs this process works, built from its context: jobs/index.ts's `allJobs`, handed in by
   * the entry point (src/server.ts), so that src/ does not import jobs/ (docs/architecture.md §1).
   */
  jobDefinitions: (ctx: Context) => JobDefinition<any>[];
  logger?: boolean | object;
  database?: Database;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  refuseUnsafeSettings(config); // before anything is opened
  // PGlite under DATA_DIR is one process's database: hold its lock while the server runs.
  const lock = !options.database && !config.databaseUrl ? acquireDataLock(config.dataDir) : undefined;
  try {
    const runtime = await start(config, options);
    if (!lock) return runtime;
    return {
      ...runtime,
      async close(closeOptions) {
        await runtime.close(closeOptions);
        lock.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function start(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const destination = options.logger === false ? undefined : createLogDestination();
  const log = destination ? pino(loggerOptions(config.logLevel), destination) : pino({ level: 'silent' });
  if (!options.database && !config.databaseUrl) {
    // A newcomer's first `npm start` spends most of its time here: say so.
    log.info(
      !isNewDataDir(config.dataDir)
        ? `opening the embedded database in ${config.dataDir}…`
        : hasPgliteTemplate()
          ? `creating the embedded database in ${config.dataDir} from its prepared template (first start)…`
          : `creating the embedded database in ${config.dataDir} (first start, no prepared template: PGlite's initdb takes a few seconds)…`,
    );
  }
  // Traces (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK starts before the database and the app it traces.
  const tracing = await startTracing(config);
  const opened =
    options.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgliteSharedBuffers: config.pgliteSharedBuffers,
      timeLimits: config.databaseTimeLimits,
      directUrl: config.databaseDirectUrl,
    }));
  const database = tracing ? tracedDatabase(opened, tracing.sql) : opened;
  // A pooler the server would misbehave through stops it here, saying what to set (src/startup-checks.ts).
  await checkDatabaseConnection(database, config, (msg) => log.warn(msg));
  const { pending, total } = await pendingMigrations(database);
  if (pending > 0) log.info(`applying migrations (${pending} of ${total})…`);
  await migrate(database);
  log.info('starting the job system…');
  const sessionSecret =
    config.sessionSecret ?? (await getOrCreateSetting(database.db, 'session_secret', () => randomBytes(32).toString('base64url')));
  const payments = createPaymentProvider(config, { publicUrl: config.publicUrl, secret: sessionSecret });
  const jobs = createJobSystem(database, log);
  const apiKeys = new ApiKeyCache();
  // The one context every handler, service and job receives.
  const files = postgresFileStore(database.db);
  const metrics = createMetrics(config.metrics !== undefined);
  const lifecycle: Lifecycle = { draining: false };
  const ctx: Context = { config, database, db: database.db, jobs, payments, log, apiKeys, files, sessionSecret, metrics, lifecycle };
  if (config.metrics) registerDatabaseGauges(metrics.registry, ctx);
  await jobs.start(options.jobDefinitions(ctx));
  // Deliveries the relay enqueued are picked up at once by this process's delivery worker.
  const relay = await startEventRelay(ctx, eventSubscribers(ctx), () => jobs.wake(WEBHOOK_DELIVERY_QUEUE));
  const revocations = await apiKeys.listen(database);
  const app = await buildApp(ctx, { logger: options.logger ?? { ...loggerOptions(config.logLevel), stream: destination }, tracing });
  const metricsServer = config.metrics?.port
    ? await startMetricsServer({ ...config.metrics, port: config.metrics.port }, metrics)
    : undefined;
  log.info(
    config.metrics
      ? `metrics at ${metricsServer?.url ?? `${config.publicUrl}/metrics`}${config.metrics.token ? ', for the bearer of METRICS_TOKEN' : ''}`
      : 'no metrics endpoint: set METRICS_PORT or METRICS_TOKEN to serve /metrics',
  );
  let closed = false;
  const drain = () => {
    lifecycle.draining = true;
    jobs.stopTaking();
  };
  return {
    app,
    database,
    jobs,
    apiKeys,
    relay,
    metrics,
    lifecycle,
    drain,
    async close(closeOptions = {}) {
      if (closed) return;
      closed = true;
      drain();
      await app.close(); // stops accepting, lets in-flight requests finish
      await metricsServer?.close();
      await relay.stop();
      await revocations.stop();
      await jobs.stop(closeOptions.jobsDeadline && Math.max(1_000, closeOptions.jobsDeadline - Date.now()));
      const { deadline } = closeOptions;
      // Together, and cut off at the deadline: a slow trace collector or a connection slow to close
      // must not turn a drain whose work is done into a process killed past its grace period.
      const byDeadline = async (work: Promise<unknown> | undefined, what: string) => {
        if (deadline === undefined || !work) return work;
        return withinTime(work, deadline - Date.now(), what).catch((err: unknown) => {
          if (!(err instanceof TimeLimitExceeded)) throw err;
          log.warn(`shutting down without waiting any longer for ${what}`);
        });
      };
      await Promise.all([
        byDeadline(closeWebhookConnections(), 'the webhook connections to close'),
        byDeadline(database.close(), 'the database to close'),
        byDeadline(tracing?.flush(), 'the last traces to be sent'),
      ]);
    },
    async flushLogs() {
      if (destination) await destination.flush();
    },
  };
}
