// pg-boss in the application's own database: PGlite through its adapter, or its own pool on a server.
import { PgBoss, fromPglite } from 'pg-boss';
import type { Database } from '../db/client.ts';
import type { FastifyBaseLogger } from 'fastify';

/** A job: a queue, an optional cron schedule, and an idempotent handler (delivery is at-least-once). */
export interface JobDefinition<T = object> {
  name: string;
  /**
   * How long one job may run before pg-boss takes it for dead (its process crashed) and retries it:
   * fitted to the work, so that a crash costs minutes, not pg-boss's default quarter of an hour.
   */
  expireInSeconds: number;
  cron?: string;
  /** Jobs of this queue one process handles at once (pg-boss localConcurrency); default 1. */
  concurrency?: number;
  /** Jobs of one group (the `group.id` they were sent with) running at once across every process (pg-boss groupConcurrency). */
  groupConcurrency?: number;
  /** How often an idle worker asks for jobs (pg-boss default 2 s). */
  pollingIntervalSeconds?: number;
  /**
   * Several schedules on this one queue, told apart by key (pg-boss schedule keys), each sending its
   * own data. At start the queue's schedules become exactly these: keys no longer listed are removed.
   */
  schedules?: { key: string; cron: string; data: object }[];
  /**
   * The queue pg-boss moves a job to once it has failed every retry: a parking place (no worker),
   * from which pg-boss's redrive() sends jobs back once the cause is fixed.
   */
  deadLetter?: string;
  /** `attempt.last`: no retry follows if this attempt fails. */
  handler(data: T, attempt: { retryCount: number; last: boolean }): Promise<void>;
}

/** pg-boss plus what the health check needs to know about it. */
export interface JobSystem {
  boss: PgBoss;
  /** Starts pg-boss, creates the queues and their schedules, and works them in this process. */
  start(jobs: JobDefinition<any>[]): Promise<void>;
  /** True while pg-boss runs and can reach its schema. */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

async function replaceSchedules(boss: PgBoss, name: string, schedules: NonNullable<JobDefinition['schedules']>): Promise<void> {
  for (const s of schedules) await boss.schedule(name, s.cron, s.data, { key: s.key });
  const keep = new Set(schedules.map((s) => s.key));
  for (const old of await boss.getSchedules(name)) if (!keep.has(old.key)) await boss.unschedule(name, old.key);
}

async function register(boss: PgBoss, job: JobDefinition<any>): Promise<void> {
  if (job.deadLetter) await boss.createQueue(job.deadLetter); // it must exist before it is named
  await boss.createQueue(job.name);
  // updateQueue, not createQueue options: it also reaches a queue created before it had them.
  await boss.updateQueue(job.name, { expireInSeconds: job.expireInSeconds, ...(job.deadLetter ? { deadLetter: job.deadLetter } : {}) });
  const options = {
    localConcurrency: job.concurrency ?? 1,
    includeMetadata: true as const,
    ...(job.groupConcurrency ? { groupConcurrency: job.groupConcurrency } : {}),
    ...(job.pollingIntervalSeconds ? { pollingIntervalSeconds: job.pollingIntervalSeconds } : {}),
  };
  await boss.work(job.name, options, async (batch) => {
    for (const item of batch) {
      await job.handler(item.data as object, { retryCount: item.retryCount, last: item.retryCount >= item.retryLimit });
    }
  });
  if (job.cron) await boss.schedule(job.name, job.cron);
  if (job.schedules) await replaceSchedules(boss, job.name, job.schedules);
}

/**
 * pg-boss on the application's database, not started yet: the context that job handlers receive
 * holds this system (services enqueue through it), so it exists before the jobs are defined.
 */
export function createJobSystem(database: Database, log: FastifyBaseLogger): JobSystem {
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite), backend: 'pglite' })
      : new PgBoss({ connectionString: database.url, max: 4, application_name: 'gigmarket-jobs' });
  let running = false;
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  boss.on('stopped', () => {
    running = false;
  });
  async function start(jobs: JobDefinition<any>[]) {
    await boss.start();
    running = true;
    for (const job of jobs) await register(boss, job);
  }

  return {
    boss,
    start,
    async healthy() {
      if (!running) return false;
      try {
        return await boss.isInstalled();
      } catch {
        return false;
      }
    },
    async stop() {
      if (running) await boss.stop({ graceful: true, timeout: 10_000 });
      running = false;
    },
  };
}

/** Creates and starts a job system with these jobs (the CLI and tests, which need no context). */
export async function startJobs(database: Database, log: FastifyBaseLogger, jobs: JobDefinition<any>[]): Promise<JobSystem> {
  const system = createJobSystem(database, log);
  await system.start(jobs);
  return system;
}
