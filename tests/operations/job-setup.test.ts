// A start over a database that already holds the queues and schedules (src/job-system/boss.ts) writes only
// what changed: the same definitions leave every queue and schedule row as it was; a changed cron,
// expiry or schedule data is written, and a schedule no longer defined is removed. On real pg-boss,
// on the test's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { rowsOf } from '../../db/sql.ts';
import { startJobs, type JobDefinition } from '../../src/job-system/boss.ts';
import { openTestDatabase } from '../helpers/server.ts';

let database: Database;
let closeDatabase = async () => {};

beforeAll(async () => {
  ({ database, close: closeDatabase } = await openTestDatabase());
});
afterAll(() => closeDatabase());

const handler = async () => {};
const definitions = (changes: { cron?: string; expireB?: number; dataK1?: object; keys?: string[] } = {}): JobDefinition[] => [
  { name: 'setup-a', expireInSeconds: 60, cron: changes.cron ?? '0 3 * * *', handler, pollingIntervalSeconds: 30 },
  {
    name: 'setup-b',
    expireInSeconds: changes.expireB ?? 30,
    deleteAfterSeconds: 3600,
    deadLetter: 'setup-b-dead',
    schedules: (changes.keys ?? ['k1', 'k2']).map((key) => ({
      key,
      cron: '*/5 * * * *',
      data: key === 'k1' ? (changes.dataK1 ?? { n: 1 }) : { n: 2 },
    })),
    handler,
    pollingIntervalSeconds: 30,
  },
];

interface QueueRow {
  name: string;
  expire: number;
  updated: string;
}
interface ScheduleRow {
  name: string;
  key: string;
  cron: string;
  data: unknown;
  updated: string;
}
const queues = () =>
  rowsOf<QueueRow>(
    database.db,
    sql`select name, expire_seconds as expire, updated_on::text as updated from pgboss.queue where name like 'setup-%' order by name`,
  );
const schedules = () =>
  rowsOf<ScheduleRow>(
    database.db,
    sql`select name, key, cron, data, updated_on::text as updated from pgboss.schedule where name like 'setup-%' order by name, key`,
  );

async function startAndStop(jobs: JobDefinition[]): Promise<void> {
  const system = await startJobs(database, pino({ level: 'silent' }), jobs);
  await system.stop();
  await new Promise((resolve) => setTimeout(resolve, 5)); // a later write would carry a later time
}

describe('job setup at start', () => {
  it('creates the queues and schedules, then leaves them as they are when nothing changed', async () => {
    await startAndStop(definitions());
    const queuesBefore = await queues();
    const schedulesBefore = await schedules();
    expect(queuesBefore.map((q) => [q.name, q.expire])).toEqual([
      ['setup-a', 60],
      ['setup-b', 30],
      ['setup-b-dead', expect.any(Number)],
    ]);
    expect(schedulesBefore.map((s) => [s.name, s.key, s.cron, s.data])).toEqual([
      ['setup-a', '', '0 3 * * *', null],
      ['setup-b', 'k1', '*/5 * * * *', { n: 1 }],
      ['setup-b', 'k2', '*/5 * * * *', { n: 2 }],
    ]);

    await startAndStop(definitions());
    expect(await queues()).toEqual(queuesBefore);
    expect(await schedules()).toEqual(schedulesBefore);
  });

  it('writes a changed cron, expiry and schedule data, and removes a schedule no longer defined', async () => {
    const queuesBefore = await queues();
    const schedulesBefore = await schedules();
    await startAndStop(definitions({ cron: '0 4 * * *', expireB: 45, dataK1: { n: 10 }, keys: ['k1'] }));

    const after = await schedules();
    expect(after.map((s) => [s.name, s.key, s.cron, s.data])).toEqual([
      ['setup-a', '', '0 4 * * *', null],
      ['setup-b', 'k1', '*/5 * * * *', { n: 10 }],
    ]);
    const queuesAfter = await queues();
    expect(queuesAfter.find((q) => q.name === 'setup-b')!.expire).toBe(45);
    expect(queuesAfter.find((q) => q.name === 'setup-b')!.updated).not.toBe(queuesBefore.find((q) => q.name === 'setup-b')!.updated);
    // What did not change was not written.
    expect(queuesAfter.find((q) => q.name === 'setup-a')).toEqual(queuesBefore.find((q) => q.name === 'setup-a'));
    expect(after[0]!.updated).not.toBe(schedulesBefore[0]!.updated);
  });
});
