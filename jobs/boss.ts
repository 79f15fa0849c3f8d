// pg-boss in the application's own database: PGlite through its adapter, or its own pool on a server.
import { PgBoss, fromPglite } from 'pg-boss';
import type { Database } from '../db/client.ts';
import type { FastifyBaseLogger } from 'fastify';

/** A job: a queue, an optional cron schedule, and an idempotent handler (delivery is at-least-once). */
export interface JobDefinition<T = object> {
  name: string;
  cron?: string;
  handler(data: T): Promise<void>;
}

/** pg-boss plus what the health check needs to know about it. */
export interface JobSystem {
  boss: PgBoss;
  /** True while pg-boss runs and can reach its schema. */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startJobs(database: Database, log: FastifyBaseLogger, jobs: JobDefinition<any>[]): Promise<JobSystem> {
  const boss = database.kind === 'pglite'
    ? new PgBoss({ db: fromPglite(database.pglite), backend: 'pglite' })
    : new PgBoss({ connectionString: database.url, max: 4, application_name: 'gigmarket-jobs' });
  let running = false;
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  boss.on('stopped', () => { running = false; });
  await boss.start();
  running = true;
  for (const job of jobs) {
    await boss.createQueue(job.name);
    await boss.work(job.name, async (batch) => {
      for (const item of batch) await job.handler(item.data as object);
    });
    if (job.cron) await boss.schedule(job.name, job.cron);
  }
  return {
    boss,
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
