// Gauges read when Prometheus scrapes, from the database (db/repositories/gauges.ts) and pg-boss (its
// getQueues(): the counts of its last monitor pass, at most a minute old). Most are short reads on
// partial indexes; the outbox's and the payouts' count the rows waiting, so they grow with a
// backlog, and the connections' read pg_stat_activity. Each reading has READ_LIMIT_MS: one that
// fails or takes longer leaves its gauge out of that scrape, counted in
// gigmarket_metrics_read_failures_total and logged, so /metrics answers however the database is.
// The database's gauges report what every process sees alike (aggregate them with max, not sum);
// gigmarket_draining and gigmarket_db_pool_max_connections are this process's own.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Context } from '../context.ts';
import type { Database } from '../../db/client.ts';
import { disabledEndpoints, liveMcpSessions, outboxBacklog, payoutFigures, serverConnections } from '../../db/repositories/gauges.ts';
import { IDLE_MINUTES } from '../mcp/sessions.ts';
import { TimeLimitExceeded, withinTime } from '../time-limit.ts';

type Sources = Pick<Context, 'database' | 'db' | 'jobs' | 'lifecycle' | 'log'>;

/** The application names gigmarket's connections carry (db/client.ts, src/job-system/boss.ts). */
const APPLICATIONS = ['gigmarket', 'gigmarket-jobs'];

/**
 * The longest one reading may take. Well within Prometheus's default scrape timeout (10 s): prom-client
 * collects the gauges at once, so a scrape waits this long at most for all of them.
 */
export const READ_LIMIT_MS = 2_000;

/**
 * One reading shared by the gauges a scrape collects together (prom-client collects them at once),
 * and by the scrapes that come while it lasts: a hung database holds one reading, not one per scrape.
 */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

type DefineGauge = <L extends string, T>(
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Promise<T>,
  fill: (g: Gauge<L>, value: T) => void,
) => void;

export function registerDatabaseGauges(registry: Registry, ctx: Sources): void {
  const collecting = new Set<Promise<void>>();
  const failures = new Counter({
    name: 'gigmarket_metrics_read_failures_total',
    help: `Gauge readings left out of a scrape, by gauge and reason: timeout (no answer within ${READ_LIMIT_MS / 1000} s) or error.`,
    labelNames: ['metric', 'reason'] as const,
    registers: [],
    // Registered after the gauges, it is collected after them (prom-client starts every collect in
    // registration order): waiting for their readings, a scrape shows its own failures.
    async collect() {
      await Promise.allSettled(collecting);
    },
  });
  const failed = (name: string, err: unknown) => {
    failures.inc({ metric: name, reason: err instanceof TimeLimitExceeded ? 'timeout' : 'error' });
    ctx.log.warn({ err, metric: name }, 'metrics: a gauge could not be read');
  };
  const gauge: DefineGauge = (name, help, labelNames, read, fill) => {
    const reading = shared(read);
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        const collected = (async () => {
          this.reset();
          try {
            fill(this, await withinTime(reading(), READ_LIMIT_MS, `reading ${name}`));
          } catch (err) {
            this.reset();
            // Out of the scrape, not 0: reset() leaves a gauge without labels at 0, which would say all is well.
            if (labelNames.length === 0) this.remove();
            failed(name, err);
          }
        })();
        collecting.add(collected);
        return collected.finally(() => collecting.delete(collected));
      },
    });
  };
  applicationGauges(gauge, ctx);
  if (ctx.database.kind === 'postgres') postgresGauges(gauge, ctx, ctx.database);
  registry.registerMetric(failures);
}

function applicationGauges(gauge: DefineGauge, ctx: Sources): void {
  gauge(
    'gigmarket_draining',
    'Whether this process is draining after SIGTERM (1): its readiness answers 503.',
    [],
    async () => ctx.lifecycle.draining,
    (g, v) => g.set(v ? 1 : 0),
  );

  const outbox = shared(() => outboxBacklog(ctx.db));
  gauge(
    'gigmarket_outbox_undispatched_events',
    'Events written but not yet handed to their subscribers (webhooks, notifications) by the relay.',
    [],
    outbox,
    (g, v) => g.set(v.events),
  );
  gauge('gigmarket_outbox_lag_seconds', 'Age of the oldest event not yet handed on by the relay; 0 when none waits.', [], outbox, (g, v) =>
    g.set(v.oldestSeconds),
  );

  const payouts = shared(() => payoutFigures(ctx.db));
  gauge(
    'gigmarket_payouts',
    "Released milestones not paid yet, by state: due (the payout job's to make), scheduled (due later), held (the contract is disputed).",
    ['state'],
    payouts,
    (g, v) => {
      for (const state of ['due', 'scheduled', 'held'] as const) g.set({ state }, v[state]);
    },
  );
  gauge(
    'gigmarket_payouts_overdue_seconds',
    'How long the longest-due payout not made (contract not disputed) has been due; 0 when none.',
    [],
    payouts,
    (g, v) => g.set(v.overdueSeconds),
  );

  gauge(
    'gigmarket_webhook_endpoints_disabled',
    'Disabled webhook endpoints, by reason: gone (answered 410), failing (every attempt failed for 5 days), manual.',
    ['reason'],
    () => disabledEndpoints(ctx.db),
    (g, rows) => {
      for (const { reason, endpoints } of rows) g.set({ reason }, endpoints);
    },
  );

  gauge(
    'gigmarket_mcp_sessions',
    'Live MCP sessions: neither ended nor idle past their expiry.',
    [],
    () => liveMcpSessions(ctx.db, IDLE_MINUTES),
    (g, v) => g.set(v),
  );

  gauge(
    'gigmarket_jobs',
    "Jobs by queue and state (ready: due now; deferred: due later; active; failed: kept by the queue's retention), as pg-boss counted them at its last monitor pass (every minute).",
    ['queue', 'state'],
    () => ctx.jobs.boss.getQueues(),
    (g, queues) => {
      for (const q of queues) {
        g.set({ queue: q.name, state: 'ready' }, q.readyCount);
        g.set({ queue: q.name, state: 'deferred' }, q.deferredCount);
        g.set({ queue: q.name, state: 'active' }, q.activeCount);
        g.set({ queue: q.name, state: 'failed' }, q.failedCount);
      }
    },
  );
}

// A server Postgres only: PGlite is one connection inside this process. postgres.js does not tell
// how many of its pool's connections are in use or how many queries wait for one; Postgres tells
// what each connection is doing.
function postgresGauges(gauge: DefineGauge, ctx: Sources, database: Extract<Database, { kind: 'postgres' }>): void {
  gauge(
    'gigmarket_db_pool_max_connections',
    "The most connections this process's pool opens to Postgres (pg-boss keeps a pool of its own).",
    [],
    async () => database.sql.options.max,
    (g, v) => g.set(v),
  );
  const connections = shared(() => serverConnections(ctx.db, APPLICATIONS));
  gauge(
    'gigmarket_db_connections',
    "Connections to this database opened by gigmarket, every process's, by application (gigmarket: the app's pools; gigmarket-jobs: pg-boss's) and Postgres state (active: running a statement; idle in transaction: holding one open).",
    ['application', 'state'],
    connections,
    (g, rows) => {
      for (const { application, state, connections } of rows) g.set({ application, state }, connections);
    },
  );
  gauge(
    'gigmarket_db_connections_waiting_for_lock',
    'Connections opened by gigmarket whose statement waits for a lock, by application.',
    ['application'],
    connections,
    (g, rows) => {
      for (const application of APPLICATIONS)
        g.set(
          { application },
          rows.filter((r) => r.application === application).reduce((n, r) => n + r.waiting, 0),
        );
    },
  );
}
