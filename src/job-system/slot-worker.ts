// A worker that keeps up to `slots` jobs of one queue in hand and fetches more as slots free up.
// pg-boss's own workers hand jobs over one at a time (one fetch and a poll interval per job) or in
// batches (each batch waits for its slowest job); webhook delivery needs many attempts at once, of
// which one may take its whole 15 s without holding up the others.
import type { PgBoss } from 'pg-boss';

/** A job in hand: what completing it needs (its id and attempt) and its data. */
export interface HeldJob<T> {
  id: string;
  retryCount: number;
  data: T;
}

export interface SlotWorkerOptions<T> {
  name: string;
  slots: number;
  /** pg-boss groupConcurrency: jobs of one group in hand at once across every process. */
  groupConcurrency?: number;
  /** How long an idle worker waits before looking again, when nothing wakes it. */
  pollingIntervalMs: number;
  /** Completes its job itself (completeJobsInTransaction, src/job-system/queues.ts); when it throws, the job is failed and retried. */
  run(job: HeldJob<T>): Promise<void>;
  onError(err: unknown): void;
}

export interface SlotWorker {
  /** Look for jobs now (for instance: this process has just enqueued some). */
  wake(): void;
  /** Stops fetching, then waits for the jobs in hand (the job system bounds the wait: JobSystem.stop). */
  stop(): Promise<void>;
}

export function startSlotWorker<T>(boss: PgBoss, options: SlotWorkerOptions<T>): SlotWorker {
  const inHand = new Set<Promise<void>>();
  let stopped = false;
  let woken = false;
  let resume: (() => void) | undefined;

  const wake = () => {
    woken = true;
    resume?.();
  };
  const run = async (job: HeldJob<T>) => {
    try {
      await options.run(job);
    } catch (err) {
      options.onError(err);
      const reason = { message: err instanceof Error ? err.message : String(err) };
      await boss.fail(options.name, [{ id: job.id, retryCount: job.retryCount }], reason).catch(options.onError);
    }
  };
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, options.pollingIntervalMs);
      function done() {
        clearTimeout(timer);
        resume = undefined;
        resolve();
      }
      resume = done;
    });

  const loop = (async () => {
    while (!stopped) {
      // A macrotask first: the jobs that end together (one transaction records several) free their
      // slots before the fetch, which then asks for all of them at once.
      await new Promise((r) => setImmediate(r));
      woken = false;
      const free = options.slots - inHand.size;
      let fetched: HeldJob<T>[] = [];
      if (free > 0) {
        try {
          fetched = await boss.fetch<T>(options.name, {
            batchSize: free,
            ...(options.groupConcurrency ? { groupConcurrency: options.groupConcurrency } : {}),
          });
        } catch (err) {
          options.onError(err);
        }
      }
      for (const job of fetched) {
        const held = run({ id: job.id, retryCount: job.retryCount, data: job.data }).finally(() => {
          inHand.delete(held);
          wake();
        });
        inHand.add(held);
      }
      // A fetch that filled every free slot suggests more is waiting; otherwise wait for a slot to
      // free up (a job ending), a wake-up, or the poll.
      if (free === 0 || fetched.length < free) await sleep();
    }
  })();

  return {
    wake,
    async stop() {
      stopped = true;
      resume?.();
      await loop;
      await Promise.all(inHand);
    },
  };
}
