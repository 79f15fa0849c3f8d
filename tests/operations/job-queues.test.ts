// Every queue the server works has an expiry fitted to its work (not pg-boss's default 15
// minutes): a job whose process crashed is taken for dead, and retried, that much later.
import { describe, expect, it } from 'vitest';
import { testFileServer } from '../helpers/server.ts';
import { allJobs } from '../../jobs/index.ts';
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE, WEBHOOK_DELIVERY_QUEUE } from '../../src/job-system/queues.ts';
import type { Context } from '../../src/context.ts';

const PG_BOSS_DEFAULT_EXPIRY = 900;

const server = testFileServer();

describe('job queues', () => {
  it('each has the expiry its definition gives, shorter than pg-boss default', async () => {
    // The definitions read only the settings when they are made.
    const definitions = allJobs({ config: server.config } as Context);
    const queues = new Map((await server.runtime.jobs.boss.getQueues()).map((q) => [q.name, q]));
    for (const job of definitions) {
      expect(job.expireInSeconds, job.name).toBeLessThan(PG_BOSS_DEFAULT_EXPIRY);
      expect(queues.get(job.name)?.expireInSeconds, job.name).toBe(job.expireInSeconds);
    }
    // A payout waits two minutes at most after a crash, and its dead letter queue exists.
    expect(queues.get(PAYOUT_QUEUE)?.expireInSeconds).toBe(120);
    expect(queues.has(PAYOUT_FAILED_QUEUE)).toBe(true);
    // A completed delivery job is kept an hour (the delivery log is the record), not pg-boss's week.
    expect(queues.get(WEBHOOK_DELIVERY_QUEUE)?.deleteAfterSeconds).toBe(3600);
  });
});
