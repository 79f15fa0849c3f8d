// The owner's approval policy: keys_may_approve (the default: a key's approval is the owner's) and
// owner_confirms (a key only asks: 202, a request recorded once, contract.approval_requested to
// the owner alone, their inbox told; the owner approves signed in). Only a signed-in owner changes
// the policy. An MCP client that answers the form's question itself approves nothing under
// owner_confirms. A change of policy racing a key's approval has exactly one outcome.
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { asApproval, pendingContract } from '../helpers/lifecycle.ts';
import { signInDev, type BrowserSession } from '../helpers/session.ts';
import { expectError } from '../helpers/expect-error.ts';
import { connectMcp, structured } from '../helpers/mcp.ts';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { contractApprovalRequests, contractApprovals, contracts, events, users } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';

const server = testFileServer();
let other: User;

beforeAll(async () => {
  other = await server.user('Someone Else');
});

/** A client whose owner chose owner_confirms (in a signed-in session), and a worker who did not. */
async function confirmingClient() {
  const client = await server.user('Careful Client');
  const worker = await server.user('Worker');
  const session = await signInDev(server, { userId: client.userId });
  const set = await session.api.PATCH('/api/profile/me', { body: { approval_policy: 'owner_confirms' } });
  expect(set.response.status).toBe(200);
  expect(set.data!.approval_policy).toBe('owner_confirms');
  return { client, worker, session };
}

const approveByKey = (user: { api: User['api'] }, id: string, body?: { revision_count?: number; terms_hash?: string }, key?: string) =>
  user.api.POST('/api/contracts/{id}/approve', {
    params: { path: { id }, header: key ? { 'Idempotency-Key': key } : {} },
    ...(body ? { body } : {}),
  });
const contractRow = async (id: string) => (await server.db.select().from(contracts).where(eq(contracts.id, id)))[0]!;
const approvalRows = (id: string) => server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, id));
const requestRows = (id: string) => server.db.select().from(contractApprovalRequests).where(eq(contractApprovalRequests.contractId, id));
const requestedEvents = (id: string) =>
  server.db
    .select()
    .from(events)
    .where(and(eq(events.resourceId, id), eq(events.type, 'contract.approval_requested')));

describe('approval_policy', () => {
  it('is keys_may_approve by default, and a key approves for its owner', async () => {
    const client = await server.user('Default Client');
    const worker = await server.user('Default Worker');
    expect((await client.api.GET('/api/profile/me')).data!.approval_policy).toBe('keys_may_approve');
    const { contract } = await pendingContract(client, worker);
    const res = asApproval(await approveByKey(client, contract.id));
    expect(res.response.status).toBe(200);
    expect(res.data!.contract.client_approval_method).toBe('api_key');
    expect(await requestRows(contract.id)).toEqual([]);
  });

  it('cannot be changed by an API key, alone or with other fields: 403, nothing changes', async () => {
    const user = await server.user('Agent Owner');
    for (const body of [
      { approval_policy: 'owner_confirms' as const },
      { bio: 'Changed.', approval_policy: 'keys_may_approve' as const },
    ]) {
      expectError(await user.api.PATCH('/api/profile/me', { body }), 403, 'FORBIDDEN', /only the owner, signed in/);
    }
    const [row] = await server.db.select().from(users).where(eq(users.id, user.userId));
    expect(row).toMatchObject({ approvalPolicy: 'keys_may_approve', bio: '' });
    expect((await eventsForResource(server.db, 'user', user.userId)).map((e) => e.type)).toEqual([]);
  });

  it('an agent cannot loosen it either: under owner_confirms a key cannot set keys_may_approve', async () => {
    const { client } = await confirmingClient();
    expectError(await client.api.PATCH('/api/profile/me', { body: { approval_policy: 'keys_may_approve' } }), 403, 'FORBIDDEN');
    expect((await client.api.GET('/api/profile/me')).data!.approval_policy).toBe('owner_confirms');
  });

  it('refuses a value it does not know', async () => {
    const session = await signInDev(server, { displayName: 'Typo' });
    expectError(await session.api.PATCH('/api/profile/me', { body: { approval_policy: 'nobody' as never } }), 400, 'VALIDATION_FAILED');
  });
});

describe('under owner_confirms', () => {
  it("a key's approval changes nothing but a request, answered 202 with the page to confirm on; the owner is told once", async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const before = await contractRow(contract.id);

    const asked = await approveByKey(client, contract.id, { revision_count: 0, terms_hash: contract.terms_hash });
    expect(asked.response.status).toBe(202);
    expect(asked.data).toEqual({
      status: 'owner_confirmation_required',
      contract_id: contract.id,
      party_role: 'client',
      revision_count: 0,
      terms_hash: contract.terms_hash,
      confirm_url: `${server.config.publicUrl}/#/contracts/${contract.id}`,
      requested_at: expect.any(String),
      message: expect.stringContaining('Nothing was approved'),
    });
    // Asked again (an agent's retry): the same answer, no second request or event.
    const again = await approveByKey(client, contract.id);
    expect(again.response.status).toBe(202);
    expect(again.data).toMatchObject({ requested_at: (asked.data as { requested_at: string }).requested_at });

    expect(await contractRow(contract.id)).toEqual(before);
    expect(await approvalRows(contract.id)).toEqual([]);
    expect(await requestRows(contract.id)).toMatchObject([
      { partyRole: 'client', revisionCount: 0, termsHash: contract.terms_hash, apiKeyId: client.apiKeyId },
    ]);
    const requested = await requestedEvents(contract.id);
    expect(requested).toHaveLength(1);
    expect(requested[0]).toMatchObject({ audienceUserIds: [client.userId], actorApiKeyId: client.apiKeyId });

    // The other party does not see it; the owner does, and their inbox says so.
    const theirs = await worker.api.GET('/api/events', { params: { query: { type: ['contract.approval_requested'] } } });
    expect(theirs.data!.data).toEqual([]);
    const mine = await client.api.GET('/api/events', { params: { query: { type: ['contract.approval_requested'] } } });
    expect(mine.response.status, JSON.stringify(mine.error)).toBe(200);
    expect(mine.data!.data.map((e) => e.data)).toMatchObject([{ id: contract.id, terms_hash: contract.terms_hash }]);
    await expect
      .poll(async () => (await client.api.GET('/api/notifications/inbox/messages')).data!.data.map((m) => m.type))
      .toContain('contract.approval_requested');
    const [message] = (await client.api.GET('/api/notifications/inbox/messages')).data!.data.filter(
      (m) => m.type === 'contract.approval_requested',
    );
    expect(message!.title).toMatch(/^Your agent asks you to approve/);
    expect(message!.link).toBe(`${server.config.publicUrl}/#/contracts/${contract.id}`);
  });

  it('the owner, signed in, approves; the approval is theirs (method session) and has its receipt', async () => {
    const { client, worker, session } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    expect((await approveByKey(client, contract.id)).response.status).toBe(202);
    const res = asApproval(await approveByKey(session, contract.id, { terms_hash: contract.terms_hash }));
    expect(res.response.status).toBe(200);
    expect(res.data!.contract).toMatchObject({ client_approved_at: expect.any(String), client_approval_method: 'session' });
    expect((await approvalRows(contract.id)).map((a) => [a.partyRole, a.method, a.apiKeyId])).toEqual([['client', 'session', null]]);
    // Now approved, a key's approval is refused as a second approval would be.
    expectError(await approveByKey(client, contract.id), 409, 'CONFLICT');
  });

  it('a request names the terms: stale ones are refused and record nothing', async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    expectError(await approveByKey(client, contract.id, { terms_hash: '0'.repeat(64) }), 409, 'INVALID_STATE', /terms changed/);
    expectError(await approveByKey(client, contract.id, { revision_count: 3 }), 409, 'INVALID_STATE', /revised since/);
    expect(await requestRows(contract.id)).toEqual([]);
    expect(await requestedEvents(contract.id)).toEqual([]);
  });

  it('a revise voids the pending request: its terms are refused, and a new request names the new revision', async () => {
    const { client, worker, session } = await confirmingClient();
    const { contract, negotiation } = await pendingContract(client, worker);
    expect((await approveByKey(client, contract.id)).response.status).toBe(202);
    // The worker revises and both agree again: revision 1, other terms.
    expect(
      (await worker.api.POST('/api/contracts/{id}/revise', { params: { path: { id: contract.id } }, body: { notes: 'More.' } })).response
        .status,
    ).toBe(200);
    const round = await client.api.POST('/api/negotiations/{id}/rounds', {
      params: { path: { id: negotiation.id } },
      body: { rate_cents: 9000, hours_per_week: 12, payout_delay_days: 3, milestones: [{ title: 'All of it', amount_cents: 12_000 }] },
    });
    expect(round.response.status).toBe(201);
    expect((await worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiation.id } } })).response.status).toBe(200);
    // The owner, on a page still showing the requested terms, is refused: nothing is approved.
    const stale = await approveByKey(session, contract.id, { revision_count: 0, terms_hash: contract.terms_hash });
    expectError(stale, 409, 'INVALID_STATE', /revised since revision_count 0/);
    expect(await approvalRows(contract.id)).toEqual([]);
    // The agent asks again: a request for revision 1, and the owner is told again.
    const asked = await approveByKey(client, contract.id);
    expect(asked.data).toMatchObject({ revision_count: 1 });
    expect((await requestRows(contract.id)).map((r) => r.revisionCount).sort()).toEqual([0, 1]);
    expect(await requestedEvents(contract.id)).toHaveLength(2);
  });

  it('with an Idempotency-Key, a retry replays the 202', async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const first = await approveByKey(client, contract.id, undefined, 'ask-owner-1');
    const replay = await approveByKey(client, contract.id, undefined, 'ask-owner-1');
    expect([first.response.status, replay.response.status]).toEqual([202, 202]);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(first.data);
  });

  it('binds only its owner: the other party, under the default, still approves by key', async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const res = asApproval(await approveByKey(worker, contract.id));
    expect(res.data!.contract.worker_approval_method).toBe('api_key');
    expectError(await approveByKey(other, contract.id), 404, 'NOT_FOUND');
  });

  it('an MCP client that would answer a form itself is never asked one, and approves nothing', async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const asked: ElicitRequest['params'][] = [];
    const mcp = await connectMcp(server.url, 'http', client.apiKey, (params) => {
      asked.push(params);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(result)).toMatchObject({
        status: 'owner_confirmation_required',
        contract_id: contract.id,
        confirm_url: `${server.config.publicUrl}/#/contracts/${contract.id}`,
      });
    } finally {
      await mcp.close();
    }
    expect(asked).toEqual([]);
    expect(await contractRow(contract.id)).toMatchObject({ clientApprovedAt: null, clientApprovalMethod: null });
    expect(await approvalRows(contract.id)).toEqual([]);
    expect(await requestRows(contract.id)).toHaveLength(1);
  });

  it('a URL elicitation sends the owner to the contract’s page; the tool answers once the owner approved there', async () => {
    const { client, worker, session } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const asked: ElicitRequest['params'][] = [];
    // The owner opens the page (here: their signed-in session does what the page's button does).
    const mcp = await connectMcp(
      server.url,
      'http',
      client.apiKey,
      async (params) => {
        asked.push(params);
        const approved = await session.api.POST('/api/contracts/{id}/approve', {
          params: { path: { id: contract.id } },
          body: { terms_hash: contract.terms_hash },
        });
        expect(approved.response.status).toBe(200);
        return { action: 'accept' };
      },
      ['form', 'url'],
    );
    try {
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(result.isError).toBeFalsy();
      expect(structured(result)).toMatchObject({ approved: true, contract: { id: contract.id, client_approval_method: 'session' } });
    } finally {
      await mcp.close();
    }
    expect(asked).toEqual([
      expect.objectContaining({
        mode: 'url',
        url: `${server.config.publicUrl}/#/contracts/${contract.id}`,
        elicitationId: expect.any(String),
      }),
    ]);
    expect((await approvalRows(contract.id)).map((a) => [a.partyRole, a.method])).toEqual([['client', 'session']]);
  });

  it('a URL elicitation declined, or a contract revised while the owner reads, approves nothing', async () => {
    const { client, worker } = await confirmingClient();
    const { contract } = await pendingContract(client, worker);
    const declining = await connectMcp(server.url, 'http', client.apiKey, async () => ({ action: 'decline' }), ['url']);
    try {
      const result = await declining.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(result)).toMatchObject({ status: 'owner_confirmation_required', message: expect.stringContaining('declined') });
    } finally {
      await declining.close();
    }
    // The other party revises while the owner has the page open: the tool stops waiting.
    const revising = await connectMcp(
      server.url,
      'http',
      client.apiKey,
      async () => {
        const revised = await worker.api.POST('/api/contracts/{id}/revise', {
          params: { path: { id: contract.id } },
          body: { notes: 'Wait.' },
        });
        expect(revised.response.status).toBe(200);
        return { action: 'accept' };
      },
      ['url'],
    );
    try {
      const result = await revising.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(result).message).toMatch(/revised meanwhile|is negotiation now/);
    } finally {
      await revising.close();
    }
    expect(await approvalRows(contract.id)).toEqual([]);
  });
});

describe('a key that may not approve (may_approve: false)', () => {
  it('only asks, whatever the policy; the owner’s other keys still approve; a rotation keeps it', async () => {
    const client = await server.user('Two Keys Client');
    const worker = await server.user('Worker');
    const session = await signInDev(server, { userId: client.userId });
    const made = await session.api.POST('/api/keys', { body: { name: 'asks only', may_approve: false } });
    expect(made.response.status).toBe(201);
    expect(made.data).toMatchObject({ name: 'asks only', may_approve: false });
    const asking = { api: server.client(made.data!.key) };
    const { contract } = await pendingContract(client, worker);

    const asked = await approveByKey(asking, contract.id);
    expect(asked.response.status).toBe(202);
    expect(asked.data).toMatchObject({ status: 'owner_confirmation_required', party_role: 'client' });
    expect(await approvalRows(contract.id)).toEqual([]);
    expect(await requestRows(contract.id)).toMatchObject([{ apiKeyId: made.data!.id }]);
    // The owner's policy is the default: their first key approves.
    const approved = asApproval(await approveByKey(client, contract.id));
    expect(approved.data!.contract.client_approval_method).toBe('api_key');

    const rotated = await session.api.POST('/api/keys/{id}/rotate', { params: { path: { id: made.data!.id } } });
    expect(rotated.data).toMatchObject({ may_approve: false });
    const listed = await session.api.GET('/api/keys');
    expect(listed.data!.data.find((k) => k.id === rotated.data!.id)).toMatchObject({ may_approve: false });
    expect(listed.data!.data.find((k) => k.id === client.apiKeyId)).toMatchObject({ may_approve: true });
  });
});

describe('a change of policy racing a key’s approval', () => {
  it('has exactly one outcome each time: an approval by key, or a request, never both', async () => {
    for (let i = 0; i < 4; i++) {
      const client = await server.user(`Racing Client ${i}`);
      const worker = await server.user(`Racing Worker ${i}`);
      const session: BrowserSession = await signInDev(server, { userId: client.userId });
      const { contract } = await pendingContract(client, worker);
      const [answer, changed] = await Promise.all([
        approveByKey(client, contract.id),
        session.api.PATCH('/api/profile/me', { body: { approval_policy: 'owner_confirms' } }),
      ]);
      expect(changed.response.status).toBe(200);
      const [approvals, requests, row] = await Promise.all([approvalRows(contract.id), requestRows(contract.id), contractRow(contract.id)]);
      if (answer.response.status === 200) {
        expect(approvals.map((a) => a.method)).toEqual(['api_key']);
        expect(requests).toEqual([]);
        expect(row.clientApprovalMethod).toBe('api_key');
      } else {
        expect(answer.response.status).toBe(202);
        expect(approvals).toEqual([]);
        expect(requests).toHaveLength(1);
        expect(row.clientApprovedAt).toBeNull();
      }
    }
  });
});
