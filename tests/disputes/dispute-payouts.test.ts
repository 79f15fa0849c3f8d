// No payout of a disputed contract is made: the payout job holds it and looks again later (one
// "hour" of a payout day), and the dispute's end sends the payouts then due. On the sandbox
// provider with a payout day of one second, so that payouts fall due within the test.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { eventsForResource } from '../../db/repositories/events.ts';
import { createSandboxProvider } from '../../src/payments/sandbox.ts';
import { payout, payoutHoldSeconds } from '../../src/services/milestones.ts';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { fundedSandboxContract } from '../helpers/lifecycle.ts';

const server = testFileServer({ PAYOUT_DAY_SECONDS: '1' });
let client: User;

beforeAll(async () => {
  client = await server.user('Payout Client');
});

const milestoneStatuses = async (id: string) =>
  (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!.milestones.map((m) => m.status);
const eventTypes = async (id: string) => (await eventsForResource(server.db, 'milestone', id)).map((e) => e.type);

/** The payout jobs pg-boss holds for a milestone, oldest first. */
async function payoutJobs(milestoneId: string) {
  const result: any = await server.db.execute(
    sql`select state, start_after from pgboss.job where name = 'milestone-payout' and data->>'milestone_id' = ${milestoneId} order by created_on`,
  );
  return (result.rows ?? result) as { state: string; start_after: Date | string }[];
}

/** A completed contract (both milestones released, payouts due 3 s later) that the worker disputes at once. */
async function releasedThenDisputed() {
  const worker = await server.user('Payout Worker');
  const { contract } = await fundedSandboxContract(client, worker, [
    { title: 'Parser', amount_cents: 5_000 },
    { title: 'Docs', amount_cents: 2_000 },
  ]);
  const [a, b] = contract.milestones.map((m) => m.id) as [string, string];
  for (const milestoneId of [a, b]) {
    const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
      params: { path: { id: contract.id, milestoneId } },
    });
    expect(res.response.status).toBe(200);
  }
  const opened = await worker.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: contract.id } },
    body: { reason: 'payment_withheld', description: 'The docs were accepted, then the client asked for changes.', milestone_ids: [b] },
  });
  expect(opened.response.status).toBe(201);
  return { worker, contract, a, b, dispute: opened.data! };
}

describe('payouts of a disputed contract', () => {
  it('are held, however often they fall due, and sent once the dispute is withdrawn', async () => {
    const { worker, contract, a, b, dispute } = await releasedThenDisputed();
    // Past the payout day (3 s) and a few holds (1 s each): nothing is paid, the concerned
    // milestone's nor the other's, and each payout has been re-scheduled.
    await vi.waitFor(
      async () => {
        for (const id of [a, b]) expect((await payoutJobs(id)).length).toBeGreaterThanOrEqual(3);
      },
      { timeout: 60_000, interval: 250 },
    );
    expect(await milestoneStatuses(contract.id)).toEqual(['released', 'released']);
    for (const id of [a, b]) expect(await eventTypes(id)).not.toContain('milestone.paid');
    expect((await payoutJobs(a)).filter((j) => j.state === 'completed').length).toBeGreaterThanOrEqual(2);

    expect((await worker.api.POST('/api/disputes/{id}/withdraw', { params: { path: { id: dispute.id } } })).response.status).toBe(200);
    await vi.waitFor(async () => expect(await milestoneStatuses(contract.id)).toEqual(['paid', 'paid']), {
      timeout: 60_000,
      interval: 100,
    });
    for (const id of [a, b]) expect((await eventTypes(id)).filter((t) => t === 'milestone.paid')).toEqual(['milestone.paid']);
    expect((await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } })).data!.status).toBe('completed');
  });

  it('is held by the payout itself, whatever job asks: nothing is transferred, nothing changes', async () => {
    const { contract, a } = await releasedThenDisputed();
    const provider = createSandboxProvider({ publicUrl: server.url, secret: 'a'.repeat(32) });
    const createTransfer = vi.spyOn(provider, 'createTransfer');
    expect(await payout({ db: server.db, payments: provider }, a)).toBe('held');
    expect(createTransfer).not.toHaveBeenCalled();
    expect(await milestoneStatuses(contract.id)).toEqual(['released', 'released']);
    expect(payoutHoldSeconds(86_400)).toBe(3600); // with real days, a held payout looks again hourly
  });
});
