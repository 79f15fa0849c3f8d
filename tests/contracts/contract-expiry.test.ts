// Contracts expire when both owners have not approved by approval_deadline (CONTRACT_APPROVAL_TTL):
// by the scheduled pg-boss job, or by an approval that finds the deadline passed. A short TTL keeps
// the waiting to a few seconds; `expireOverdue(deps, now)` takes the time as an argument, so some
// cases need no waiting at all. With DATABASE_URL set, two server runtimes in this process (each
// with its own pool and pg-boss), and then two real `node dist/server.js` processes, run the job at
// the same time over many overdue contracts: each expires once, with one event.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import createClient from 'openapi-fetch';
import { testFileServer, freePort, freshServerDatabase, type TestUser as User } from '../helpers/server.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { asApproval, pendingContract } from '../helpers/lifecycle.ts';
import { contracts, events } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { expireOverdue } from '../../src/services/contracts.ts';
import { CONTRACT_EXPIRY_QUEUE } from '../../src/job-system/queues.ts';
import { loadConfig } from '../../src/config.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { allJobs } from '../../jobs/index.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import type { paths } from '../../src/generated/api.d.ts';
import { expectError } from '../helpers/expect-error.ts';
import { killRunningServers, spawnServer, waitUntilHealthy } from '../helpers/server-process.ts';
import { openDatabase } from '../../db/client.ts';
import { PgBoss } from 'pg-boss';

const TTL = '3s';
const TTL_MS = 3000;

const server = testFileServer({ CONTRACT_APPROVAL_TTL: TTL });
type Party = { api: User['api']; userId: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until every one of these deadlines is in the past. */
async function waitPast(...deadlines: (string | null)[]) {
  const latest = Math.max(...deadlines.map((d) => Date.parse(d!)));
  const ms = latest - Date.now() + 50;
  if (ms > 0) await sleep(ms);
}

async function pair() {
  return { client: await server.user('Client'), worker: await server.user('Worker') };
}

const approve = async (user: Party, id: string) =>
  asApproval(await user.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } }));
const row = async (id: string) => (await server.db.select().from(contracts).where(eq(contracts.id, id)))[0]!;
const eventTypes = async (id: string) => (await eventsForResource(server.db, 'contract', id)).map((e) => e.type);
const count = (types: string[], type: string) => types.filter((t) => t === type).length;

describe('contract expiry', () => {
  it('the scheduled job expires a contract past its deadline, once; approve, revise and cancel then get 409', async () => {
    const p = await pair();
    const before = Date.now();
    const { contract } = await pendingContract(p.client, p.worker);
    const deadline = Date.parse(contract.approval_deadline!);
    expect(deadline).toBeGreaterThanOrEqual(before + TTL_MS);
    expect(deadline).toBeLessThanOrEqual(Date.now() + TTL_MS);
    await approve(p.client, contract.id);

    await waitPast(contract.approval_deadline);
    await server.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {});
    await vi.waitFor(async () => expect((await row(contract.id)).status).toBe('expired'), { timeout: 60_000, interval: 100 });

    const stored = await row(contract.id);
    expect(stored.expiredAt).toBeInstanceOf(Date);
    const written = await eventsForResource(server.db, 'contract', contract.id);
    expect(written.map((e) => e.type)).toEqual(['contract.created', 'contract.approved', 'contract.expired']);
    expect(written[2]).toMatchObject({
      actorUserId: null,
      data: { id: contract.id, status: 'expired', expired_at: stored.expiredAt!.toISOString() },
    });

    // Running it again changes nothing for this contract.
    await expireOverdue({ db: server.db }, new Date());
    expectError(await approve(p.worker, contract.id), 409, 'INVALID_STATE', /expired/);
    expectError(
      await p.worker.api.POST('/api/contracts/{id}/revise', { params: { path: { id: contract.id } }, body: { notes: 'Late' } }),
      409,
      'INVALID_STATE',
      /expired/,
    );
    expectError(
      await p.client.api.POST('/api/contracts/{id}/cancel', { params: { path: { id: contract.id } } }),
      409,
      'INVALID_STATE',
      /expired/,
    );
    expect(await eventTypes(contract.id)).toEqual(['contract.created', 'contract.approved', 'contract.expired']);
    const listed = await p.client.api.GET('/api/contracts', { params: { query: { status: 'expired' } } });
    expect(listed.data!.data.map((c) => c.id)).toEqual([contract.id]);
    // The parties may start again on the same gig.
    const again = await p.client.api.POST('/api/negotiations', { body: { gig_id: contract.gig_id, worker_user_id: p.worker.userId } });
    expect(again.response.status).toBe(200);
  });

  it('only contracts still waiting for approval past their deadline expire', async () => {
    const p = await pair();
    const due = await pendingContract(p.client, p.worker);
    const kyc = await pendingContract(p.client, p.worker);
    await approve(p.client, kyc.contract.id);
    expect((await approve(p.worker, kyc.contract.id)).data!.contract.status).toBe('pending_freelancer_kyc');
    const revised = await pendingContract(p.client, p.worker);
    await p.client.api.POST('/api/contracts/{id}/revise', { params: { path: { id: revised.contract.id } }, body: { notes: 'Change' } });
    const cancelled = await pendingContract(p.client, p.worker);
    await p.client.api.POST('/api/contracts/{id}/cancel', { params: { path: { id: cancelled.contract.id } } });
    await sleep(5);
    const later = await pendingContract(p.client, p.worker);

    // The clock as an argument: "now" is just past the first contract's deadline, before the last one's.
    const now = new Date(Date.parse(due.contract.approval_deadline!) + 1);
    expect(Date.parse(later.contract.approval_deadline!)).toBeGreaterThan(now.getTime());
    const expired = await expireOverdue({ db: server.db }, now);
    expect(expired).toBeGreaterThanOrEqual(1);
    expect(await row(due.contract.id)).toMatchObject({ status: 'expired' });
    expect(await row(kyc.contract.id)).toMatchObject({ status: 'pending_freelancer_kyc', expiredAt: null });
    expect(await row(revised.contract.id)).toMatchObject({ status: 'negotiation', expiredAt: null });
    expect(await row(cancelled.contract.id)).toMatchObject({ status: 'cancelled', expiredAt: null });
    expect(await row(later.contract.id)).toMatchObject({ status: 'pending_owner_approval', expiredAt: null });
    for (const c of [kyc, revised, cancelled, later]) expect(await eventTypes(c.contract.id)).not.toContain('contract.expired');
  });

  it('an approval past the deadline, before the job ran: 409, and the contract expires then, once', async () => {
    const p = await pair();
    const { contract } = await pendingContract(p.client, p.worker);
    await waitPast(contract.approval_deadline);
    expectError(await approve(p.client, contract.id), 409, 'INVALID_STATE', /deadline has passed/);
    expect(await row(contract.id)).toMatchObject({ status: 'expired', clientApprovedAt: null });
    expectError(await approve(p.worker, contract.id), 409, 'INVALID_STATE', /expired/);
    await expireOverdue({ db: server.db }, new Date());
    expect(await eventTypes(contract.id)).toEqual(['contract.created', 'contract.expired']);
  });

  it('approve against expiry at once: one outcome, one contract.expired, no approval recorded', async () => {
    const p = await pair();
    const made = [];
    for (let i = 0; i < 4; i++) {
      const { contract } = await pendingContract(p.client, p.worker);
      await approve(p.client, contract.id);
      made.push(contract);
    }
    await waitPast(...made.map((c) => c.approval_deadline));
    await Promise.all(
      made.flatMap((c, i) => [
        approve(p.worker, c.id).then((res) => expectError(res, 409, 'INVALID_STATE')),
        // Alternate the expiry between a direct call and the job, to meet the approvals both ways.
        i % 2 === 0 ? expireOverdue({ db: server.db }, new Date()) : server.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {}),
      ]),
    );
    for (const c of made) {
      const stored = await row(c.id);
      expect(stored).toMatchObject({ status: 'expired', workerApprovedAt: null });
      const types = await eventTypes(c.id);
      expect(count(types, 'contract.expired')).toBe(1);
      expect(count(types, 'contract.approved')).toBe(1); // the client's, before the deadline
      expect(types).not.toContain('contract.pending_freelancer_kyc');
    }
  });
});

describe.runIf(process.env.DATABASE_URL)('two server runtimes (own pools, own pg-boss) on one Postgres', () => {
  const runtimes: Runtime[] = [];
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    for (const r of runtimes) await r.close();
    await drop?.();
  });

  /** A server process's runtime (HTTP, pg-boss workers, its own pool) on the shared database. */
  async function startProcess(databaseUrl: string) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: String(port),
      PUBLIC_URL: url,
      DATABASE_URL: databaseUrl,
      CONTRACT_APPROVAL_TTL: TTL,
    });
    const runtime = await startRuntime(config, { jobDefinitions: allJobs, logger: false });
    runtimes.push(runtime);
    await runtime.app.listen({ port, host: '127.0.0.1' });
    const user = async (name: string) => {
      const created = await createUserWithKey({ db: runtime.database.db }, name);
      const api = createClient<paths>({ baseUrl: url, headers: { authorization: `Bearer ${created.apiKey}` } });
      api.use(specValidation);
      return { ...created, api };
    };
    return { runtime, user };
  }

  it('both run the expiry job at the same time over many overdue contracts: each expires once, with one event', async () => {
    const fresh = await freshServerDatabase(process.env.DATABASE_URL!);
    drop = fresh.drop;
    // One after the other, so that migrations do not race; then both run side by side.
    const a = await startProcess(fresh.url);
    const b = await startProcess(fresh.url);

    const N = 24;
    const ids: string[] = [];
    const deadlines: string[] = [];
    for (let i = 0; i < N / 2; i++) {
      // Half the contracts made through each process.
      for (const proc of [a, b]) {
        const client = await proc.user(`Client ${i}`);
        const worker = await proc.user(`Worker ${i}`);
        const { contract } = await pendingContract(client, worker);
        ids.push(contract.id);
        deadlines.push(contract.approval_deadline!);
      }
    }
    await waitPast(...deadlines);

    const now = new Date();
    const [byA, byB, ...jobIds] = (await Promise.all([
      // Small batches, so that the two interleave over the same rows.
      expireOverdue({ db: a.runtime.database.db }, now, 3),
      expireOverdue({ db: b.runtime.database.db }, now, 3),
      // And each process's pg-boss worker picks up a job at the same time.
      a.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {}),
      b.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {}),
      a.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {}),
      b.runtime.jobs.boss.send(CONTRACT_EXPIRY_QUEUE, {}),
    ])) as [number, number, ...(string | null)[]];
    expect(byA + byB).toBeLessThanOrEqual(N);

    const db = a.runtime.database.db;
    await vi.waitFor(
      async () => {
        const rows = await db.select({ status: contracts.status }).from(contracts).where(inArray(contracts.id, ids));
        expect(rows.map((r) => r.status)).toEqual(Array(N).fill('expired'));
      },
      { timeout: 30_000, interval: 200 },
    );
    // Let the jobs finish (without error), then count.
    await vi.waitFor(
      async () => {
        for (const id of jobIds) {
          expect((await a.runtime.jobs.boss.getJobById(CONTRACT_EXPIRY_QUEUE, id!))?.state).toBe('completed');
        }
      },
      { timeout: 30_000, interval: 200 },
    );

    const expired = await db.select({ resourceId: events.resourceId }).from(events).where(eq(events.type, 'contract.expired'));
    expect(expired).toHaveLength(N);
    expect(new Set(expired.map((e) => e.resourceId))).toEqual(new Set(ids));
  }, 120_000);
});

describe.runIf(process.env.DATABASE_URL)('two `node dist/server.js` processes on one Postgres', () => {
  afterAll(() => killRunningServers());

  it('both work the expiry queue at once: each overdue contract expires once, with one event', async () => {
    const fresh = await freshServerDatabase(process.env.DATABASE_URL!);
    const env = { DATABASE_URL: fresh.url, CONTRACT_APPROVAL_TTL: TTL, LOG_LEVEL: 'warn' };
    const processes = [await spawnServer(env), await spawnServer(env)];
    for (const p of processes) await waitUntilHealthy(p);
    const database = await openDatabase({ databaseUrl: fresh.url, max: 2 });
    const boss = new PgBoss({ connectionString: fresh.url, max: 2 });
    try {
      // Users as the operator CLI makes them; every request goes to one of the two processes.
      const user = async (url: string, name: string) => {
        const created = await createUserWithKey({ db: database.db }, name);
        const api = createClient<paths>({ baseUrl: url, headers: { authorization: `Bearer ${created.apiKey}` } });
        api.use(specValidation);
        return { ...created, api };
      };
      const N = 10;
      const ids: string[] = [];
      const deadlines: string[] = [];
      for (let i = 0; i < N; i++) {
        const url = processes[i % 2]!.url;
        const { contract } = await pendingContract(await user(url, `Client ${i}`), await user(url, `Worker ${i}`));
        ids.push(contract.id);
        deadlines.push(contract.approval_deadline!);
      }
      await waitPast(...deadlines);

      // Several expiry jobs at once; only the two server processes work the queue (this client
      // only sends), so they run them side by side over the same rows.
      await boss.start();
      await Promise.all(Array.from({ length: 6 }, () => boss.send(CONTRACT_EXPIRY_QUEUE, {})));

      await vi.waitFor(
        async () => {
          const rows = await database.db.select({ status: contracts.status }).from(contracts).where(inArray(contracts.id, ids));
          expect(rows.map((r) => r.status)).toEqual(Array(N).fill('expired'));
        },
        { timeout: 60_000, interval: 250 },
      );
      const expired = await database.db.select({ resourceId: events.resourceId }).from(events).where(eq(events.type, 'contract.expired'));
      expect(expired.map((e) => e.resourceId).sort()).toEqual([...ids].sort());

      for (const p of processes) p.child.kill('SIGTERM');
      for (const p of processes) expect((await p.exited).code).toBe(0);
    } finally {
      await boss.stop({ graceful: false }).catch(() => {});
      await database.close();
      await fresh.drop();
    }
  }, 150_000);
});
