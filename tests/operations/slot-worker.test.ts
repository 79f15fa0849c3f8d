// The slot worker (src/job-system/slot-worker.ts) on real pg-boss, on the test's database: it keeps up to
// `slots` jobs in hand, a slow job holds only its own slot, a job whose run throws is failed and
// retried, wake() fetches at once, and the job system's stop waits for the jobs in hand until its
// deadline, no longer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { createJobSystem, type JobSystem } from '../../src/job-system/boss.ts';
import { rowsOf } from '../../db/sql.ts';
import { openTestDatabase } from '../helpers/server.ts';

const QUEUE = 'slot-worker-test';
interface Data {
  n: number;
  slow?: boolean;
  fail?: boolean;
  /** Runs until the end of the file, past the deadline of the job system's stop. */
  hang?: boolean;
}

let database: Database;
let jobs: JobSystem;
let closeDatabase = async () => {};
const running = new Set<number>();
const done: number[] = [];
let peak = 0;
let release: () => void = () => {};
const slowReleased = new Promise<void>((r) => {
  release = r;
});
const runs = new Map<number, number>();
let unhang: () => void = () => {};
const hung = new Promise<void>((r) => {
  unhang = r;
});

beforeAll(async () => {
  ({ database, close: closeDatabase } = await openTestDatabase());
  jobs = createJobSystem(database, pino({ level: 'silent' }));
  await jobs.start([
    {
      name: QUEUE,
      expireInSeconds: 60,
      slots: 3,
      // Long: a test that sees a job run within a second saw wake(), not the poll.
      pollingIntervalSeconds: 30,
      async run(job) {
        const data = job.data as Data;
        runs.set(data.n, (runs.get(data.n) ?? 0) + 1);
        running.add(data.n);
        peak = Math.max(peak, running.size);
        try {
          if (data.hang) return await hung;
          if (data.slow) await slowReleased;
          else await new Promise((r) => setTimeout(r, 20));
          if (data.fail && runs.get(data.n) === 1) throw new Error('the first run fails');
          await jobs.boss.complete(QUEUE, [{ id: job.id, retryCount: job.retryCount }]);
          done.push(data.n);
        } finally {
          running.delete(data.n);
        }
      },
    },
  ]);
});
afterAll(async () => {
  release();
  unhang();
  await jobs?.stop();
  await closeDatabase();
});

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rows = <T>(query: ReturnType<typeof sql>) => rowsOf<T>(database.db, query);
const send = (data: Data, options: { retryLimit?: number; retryDelay?: number } = {}) => jobs.boss.send(QUEUE, data, options);

describe('the slot worker', () => {
  it('runs up to its slots at once; a slow job holds only its own slot; wake() fetches at once', async () => {
    await send({ n: 0, slow: true });
    for (let n = 1; n <= 6; n++) await send({ n });
    jobs.wake(QUEUE);
    // Six quick jobs finish in the two slots the slow one leaves, while it still runs.
    await until('the quick jobs', () => (done.filter((n) => n > 0).length === 6 ? true : undefined));
    expect(running.has(0)).toBe(true);
    expect(peak).toBe(3);
    release();
    await until('the slow job', () => (done.includes(0) ? true : undefined));
    const states = await jobs.boss.findJobs(QUEUE, {});
    expect(states.every((j) => j.state === 'completed')).toBe(true);
  });

  it('fails a job whose run throws, and pg-boss retries it', async () => {
    const id = await send({ n: 100, fail: true }, { retryLimit: 1, retryDelay: 1 });
    jobs.wake(QUEUE);
    await until('the failed run', () => (runs.get(100) === 1 && !running.has(100) ? true : undefined));
    // The worker records the failure once the run has returned: wait until pg-boss holds it.
    const failed = await until('the failure recorded', async () => {
      const [job] = await jobs.boss.findJobs(QUEUE, { id: id! });
      return job?.state === 'active' ? undefined : job;
    });
    expect(failed).toMatchObject({ state: 'retry', retryCount: 0 });
    // The retry is due a second later; the poll is 30 s, so wake the worker then.
    await new Promise((r) => setTimeout(r, 1100));
    jobs.wake(QUEUE);
    await until('the retry', () => (done.includes(100) ? true : undefined));
    const [retried] = await jobs.boss.findJobs(QUEUE, { id: id! });
    expect(retried).toMatchObject({ state: 'completed', retryCount: 1 });
  });

  // Last: it stops the job system.
  it('stops by its deadline with a job still in hand, which stays active for its expiry', async () => {
    const id = await send({ n: 200, hang: true });
    jobs.wake(QUEUE);
    await until('the job in hand', () => (running.has(200) ? true : undefined));
    const started = performance.now();
    await jobs.stop(1_500);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(3_500); // pg-boss's own stop takes a second at least
    expect(running.has(200)).toBe(true);
    expect(await jobs.healthy()).toBe(false);
    const [job] = await rows<{ state: string }>(sql`select state::text from pgboss.job where id = ${id}`);
    expect(job).toEqual({ state: 'active' });
  });
});
