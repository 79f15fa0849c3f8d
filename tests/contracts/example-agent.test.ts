// The example agent (examples/lifecycle-agent.ts) against a test server on the sandbox provider:
// the test plays the two owners.
import { describe, expect, it } from 'vitest';
import type { components } from '../../src/generated/api.d.ts';
import { walkLifecycle } from '../../examples/lifecycle-agent.ts';
import { testFileServer } from '../helpers/server.ts';

type Contract = components['schemas']['Contract'];
const server = testFileServer();

describe('the example agent', () => {
  it('walks a gig to a completed contract, approving only what each owner said yes to', async () => {
    const [client, worker] = await server.users('Client Co', 'Worker Bee');
    const asked: { owner: string; contract: Contract }[] = [];
    const result = await walkLifecycle({
      baseUrl: server.url,
      clientKey: client.apiKey,
      workerKey: worker.apiKey,
      confirm: async (owner, contract) => {
        asked.push({ owner, contract });
        return true;
      },
    });
    expect(result.outcome).toBe('completed');
    expect(asked.map((a) => a.owner)).toEqual(['client', 'worker']);
    expect(asked[0]!.contract).toMatchObject({
      status: 'pending_owner_approval',
      rate_cents: 9000,
      payout_delay_days: 3,
      revision_count: 0,
    });
    const contract = await client.api.GET('/api/contracts/{id}', { params: { path: { id: result.contract.id } } });
    expect(contract.data).toMatchObject({ status: 'completed', client_user_id: client.userId, worker_user_id: worker.userId });
    for (const milestone of contract.data!.milestones) expect(['released', 'paid']).toContain(milestone.status);
    if (result.outcome === 'completed')
      expect(result.events).toEqual(
        expect.arrayContaining(['contract.created', 'contract.approved', 'contract.active', 'contract.completed']),
      );
  });

  it('stops when an owner says no: nothing is approved', async () => {
    const [client, worker] = await server.users('Client Two', 'Worker Two');
    const result = await walkLifecycle({
      baseUrl: server.url,
      clientKey: client.apiKey,
      workerKey: worker.apiKey,
      confirm: async () => false,
    });
    expect(result).toMatchObject({ outcome: 'not_approved', owner: 'client' });
    const contract = await client.api.GET('/api/contracts/{id}', { params: { path: { id: result.contract.id } } });
    expect(contract.data).toMatchObject({ status: 'pending_owner_approval', client_approved_at: null, worker_approved_at: null });
  });
});
