// pg-boss in the application's own database: PGlite through its adapter, or its own pool on a server.
// The job definitions it runs (jobs/) are handed to `start`: this module never imports them.
import { isDeepStrictEqual } from 'node:util';
import { PgBoss, fromPglite, type QueueResult, type Schedule } from 'pg-boss';
import { startSlotWorker, type HeldJob, type SlotWorker } from './slot-worker.ts';
import { withinTime } from '../time-limit.ts';
import type { Database } from '../../db/client.ts';
import type { FastifyBaseLogger } from 'fastify';

interface JobBase {
  name: string;
  /**
   * How long one job may run before pg-boss takes it for dead (its process crashed) and retries it:
   * fitted to the work, so that a crash costs minutes, not pg-boss's default quarter of an hour.
   */
  expireInSeconds: number;
  /** How long pg-boss keeps a completed job (its default is 7 days). */
  deleteAfterSeconds?: number;
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
}

/**
 * A job: a queue, an optional cron schedule, and an idempotent handler (delivery is at-least-once);
 * either one job at a time (`handler`) or several (`batch`).
 */
export type JobDefinition<T = object> = JobBase &
  (
    | {
        /** `attempt.last`: no retry follows if this attempt fails. */
        handler(data: T, attempt: { retryCount: number; last: boolean }): Promise<void>;
      }
    | {
        /**
         * Up to `slots` jobs of this queue in hand at once in this process, fetched as slots free up
         * (src/job-system/slot-worker.ts), so that one slow job holds only its own slot. `run`
         * completes its job itself, in the transaction that records what it did
         * (completeJobsInTransaction); a job it throws for is failed and retried.
         */
        slots: number;
        run(job: HeldJob<T>): Promise<void>;
      }
  );

/** pg-boss plus what the health check needs to know about it. */
export interface JobSystem {
  boss: PgBoss;
  /** Starts pg-boss, creates the queues and their schedules, and works them in this process. */
  start(jobs: JobDefinition<any>[]): Promise<void>;
  /** Makes the queue's slot worker in this process look for jobs now (it has just enqueued some); other queues poll. */
  wake(queue: string): void;
  /** True while pg-boss runs and can reach its schema. */
  healthy(): Promise<boolean>;
  /** Takes no new job from now on; the running ones go on (a drain's first step, src/shutdown.ts). */
  stopTaking(): void;
  /**
   * Stops taking jobs, waits up to `timeoutMs` for the running ones (for pg-boss's own, 1 s at least:
   * its minimum), and stops pg-boss.
   */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * The queues and schedules the database already holds, read once at start, so that a start over
 * an existing database writes only what changed. Written anyway, each createQueue, updateQueue and
 * schedule is a statement of its own (createQueue a PL/pgSQL block), and schedule() first loads and
 * runs the cron parser: on the embedded database, a large share of a cold start, where reading
 * what is in place and writing nothing costs little (docs/performance.md, Cold start).
 */
interface InPlace {
  queues: Map<string, QueueResult>;
  schedules: Schedule[];
}

async function inPlace(boss: PgBoss): Promise<InPlace> {
  const [queues, schedules] = await Promise.all([boss.getQueues(), boss.getSchedules()]);
  return { queues: new Map(queues.map((q) => [q.name, q])), schedules };
}

/** Whether the queue exists with these settings already (a setting left undefined is not one). */
function queueHas(queue: QueueResult | undefined, settings: Record<string, unknown>): boolean {
  return !!queue && Object.entries(settings).every(([key, value]) => value === undefined || queue[key as keyof QueueResult] === value);
}

/** pg-boss's schedule(), unless the row it would write is there already (as getSchedules reads it back). */
async function schedule(boss: PgBoss, found: InPlace, name: string, cron: string, data?: object, options: { key?: string } = {}) {
  const same = found.schedules.some(
    (s) =>
      s.name === name &&
      s.key === (options.key ?? '') &&
      s.cron === cron &&
      s.timezone === 'UTC' &&
      isDeepStrictEqual(s.data ?? null, data ?? null) &&
      isDeepStrictEqual(s.options ?? {}, options),
  );
  if (!same) await boss.schedule(name, cron, data, options);
}

async function replaceSchedules(
  boss: PgBoss,
  found: InPlace,
  name: string,
  schedules: NonNullable<JobDefinition['schedules']>,
): Promise<void> {
  for (const s of schedules) await schedule(boss, found, name, s.cron, s.data, { key: s.key });
  const keep = new Set(schedules.map((s) => s.key));
  for (const old of found.schedules) if (old.name === name && !keep.has(old.key)) await boss.unschedule(name, old.key);
}

async function register(boss: PgBoss, found: InPlace, job: JobDefinition<any>, log: FastifyBaseLogger): Promise<SlotWorker | undefined> {
  // The dead letter queue must exist before it is named.
  if (job.deadLetter && !found.queues.has(job.deadLetter)) await boss.createQueue(job.deadLetter);
  const queue = found.queues.get(job.name);
  if (!queue) await boss.createQueue(job.name);
  // updateQueue, not createQueue options: it also reaches a queue created before it had them.
  const settings = {
    expireInSeconds: job.expireInSeconds,
    ...(job.deleteAfterSeconds ? { deleteAfterSeconds: job.deleteAfterSeconds } : {}),
    ...(job.deadLetter ? { deadLetter: job.deadLetter } : {}),
  };
  if (!queueHas(queue, settings)) await boss.updateQueue(job.name, settings);
  let worker: SlotWorker | undefined;
  if ('slots' in job) {
    worker = startSlotWorker(boss, {
      name: job.name,
      slots: job.slots,
      groupConcurrency: job.groupConcurrency,
      pollingIntervalMs: (job.pollingIntervalSeconds ?? 2) * 1000,
      run: job.run,
      onError: (err) => log.error({ err, queue: job.name }, 'job failed'),
    });
  } else {
    const handler = job.handler;
    const options = {
      localConcurrency: job.concurrency ?? 1,
      includeMetadata: true as const,
      ...(job.groupConcurrency ? { groupConcurrency: job.groupConcurrency } : {}),
      ...(job.pollingIntervalSeconds ? { pollingIntervalSeconds: job.pollingIntervalSeconds } : {}),
    };
    await boss.work(job.name, options, async (batch) => {
      for (const item of batch) {
        await handler(item.data as object, { retryCount: item.retryCount, last: item.retryCount >= item.retryLimit });
      }
    });
  }
  if (job.cron) await schedule(boss, found, job.name, job.cron);
  if (job.schedules) await replaceSchedules(boss, found, job.name, job.schedules);
  return worker;
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
  const slotWorkers = new Map<string, SlotWorker>();
  const workedQueues: string[] = [];
  let slotWorkersStopped: Promise<unknown> | undefined;
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  boss.on('stopped', () => {
    running = false;
  });
  async function start(jobs: JobDefinition<any>[]) {
    await boss.start();
    running = true;
    const found = await inPlace(boss);
    for (const job of jobs) {
      const worker = await register(boss, found, job, log);
      if (worker) slotWorkers.set(job.name, worker);
      else workedQueues.push(job.name);
    }
  }
  function stopTaking() {
    slotWorkersStopped ??= Promise.all([...slotWorkers.values()].map((w) => w.stop()));
    if (running) for (const name of workedQueues) void boss.offWork(name, { wait: false }).catch(() => {});
  }

  return {
    boss,
    start,
    wake: (queue) => slotWorkers.get(queue)?.wake(),
    async healthy() {
      if (!running) return false;
      try {
        return await boss.isInstalled();
      } catch {
        return false;
      }
    },
    stopTaking,
    async stop(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      stopTaking();
      // A slot worker's job still running then is left as it is: once it expires, pg-boss gives it
      // to another process.
      await withinTime(slotWorkersStopped!, timeoutMs, 'the jobs in hand').catch((err: unknown) =>
        log.warn({ err }, 'stopping with jobs still running: they are retried once they expire'),
      );
      slotWorkers.clear();
      if (running) await boss.stop({ graceful: true, timeout: Math.max(0, deadline - Date.now()) });
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
