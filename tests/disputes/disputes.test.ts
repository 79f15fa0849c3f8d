// Disputes over HTTP on the sandbox provider: opening one (the contract held), reading it,
// the other party's response, evidence (statements and files, downloadable by the parties only,
// served inert), withdrawal (the contract returns). Resolution and recommendations have files of
// their own (dispute-resolution.test.ts, dispute-recommendation.test.ts).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { eventsForResource } from '../../db/repositories/events.ts';
import { newId } from '../../src/ids.ts';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import {
  activeSandboxContract,
  completedSandboxContract,
  fundedSandboxContract,
  payOnSandboxPage,
  pendingContract,
} from '../helpers/lifecycle.ts';
import { formWith, pdfFile, pngFile, textFile } from '../helpers/files.ts';
import { assertMatchesSpec } from '../helpers/spec-validator.ts';

const server = testFileServer();
let client: User;
let stranger: User;

beforeAll(async () => {
  [client, stranger] = await server.users('Dispute Client', 'Stranger');
});

const open = (
  user: { api: User['api'] },
  contractId: string,
  milestoneIds: string[],
  description = 'The parser fails on the agreed logs.',
) =>
  user.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: contractId } },
    body: { reason: 'work_not_as_agreed', description, milestone_ids: milestoneIds },
  });
const get = (user: { api: User['api'] }, id: string, evidence?: 0 | 1) =>
  user.api.GET('/api/disputes/{id}', { params: { path: { id }, query: evidence === undefined ? {} : { evidence } } });
const respond = (user: { api: User['api'] }, id: string, text = 'The logs changed after we agreed.') =>
  user.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text } });
const withdraw = (user: { api: User['api'] }, id: string) => user.api.POST('/api/disputes/{id}/withdraw', { params: { path: { id } } });
const addText = (user: { api: User['api'] }, id: string, text: string) =>
  user.api.POST('/api/disputes/{id}/evidence', { params: { path: { id } }, body: { text } });
const addFile = (user: { api: User['api'] }, id: string, bytes: Uint8Array) =>
  user.api.POST('/api/disputes/{id}/evidence/files', {
    params: { path: { id } },
    body: formWith('file', bytes, 'evidence.pdf') as never,
    bodySerializer: (body: unknown) => body as never,
  });
const contractStatus = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!.status;
const eventTypes = async (type: string, id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);

/** A new worker, an active contract with two funded milestones, and a dispute the client opened on the first. */
async function disputed() {
  const worker = await server.user('Dispute Worker');
  const { contract } = await fundedSandboxContract(client, worker, [
    { title: 'Parser', amount_cents: 5_000 },
    { title: 'Docs', amount_cents: 1_000 },
  ]);
  const res = await open(client, contract.id, [contract.milestones[0]!.id]);
  expect(res.response.status).toBe(201);
  return { worker, contract, dispute: res.data! };
}

describe('POST /api/contracts/{id}/disputes', () => {
  it('opens a dispute on an active contract: the contract is disputed, both parties hear of it', async () => {
    const { worker, contract, dispute } = await disputed();
    expect(dispute).toEqual({
      id: expect.any(String),
      contract_id: contract.id,
      status: 'open',
      reason: 'work_not_as_agreed',
      description: 'The parser fails on the agreed logs.',
      milestone_ids: [contract.milestones[0]!.id],
      opener_user_id: client.userId,
      opener_role: 'client',
      response: null,
      responded_at: null,
      acceptances: { client: null, worker: null },
      recommendation: null,
      resolution: null,
      evidence_count: 0,
      withdrawn_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await contractStatus(contract.id)).toBe('disputed');
    const [opened] = await eventsForResource(server.db, 'dispute', dispute.id);
    expect(opened).toMatchObject({ type: 'dispute.opened', actorUserId: client.userId, audienceUserIds: [client.userId, worker.userId] });
    expect(opened!.data).toEqual(dispute);
    expect((await eventTypes('contract', contract.id)).at(-1)).toBe('contract.disputed');
    // The worker must answer: an inbox message; the client, who opened it, gets none.
    await vi.waitFor(
      async () => {
        const inbox = await worker.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 1 } } });
        expect(inbox.data!.data[0]).toMatchObject({ type: 'dispute.opened', link: `${server.url}/#/disputes/${dispute.id}` });
      },
      { timeout: 60_000, interval: 100 },
    );
    const mine = await client.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 100 } } });
    expect(mine.data!.data.filter((m) => m.type === 'dispute.opened')).toEqual([]);
  });

  it('holds the contract: nothing is funded or released while it is disputed', async () => {
    const { contract } = await disputed();
    const [first, second] = contract.milestones;
    const params = { path: { id: contract.id, milestoneId: second!.id } };
    expectError(await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', { params }), 409, 'INVALID_STATE');
    expectError(
      await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
        params: { path: { ...params.path, milestoneId: first!.id } },
      }),
      409,
      'INVALID_STATE',
    );
  });

  it('opens one on a completed contract whose payout is still to make, and refuses what is not in escrow', async () => {
    const worker = await server.user('Completed Worker');
    const { contract } = await completedSandboxContract(client, worker); // released, paid 3 days later
    const res = await open(worker, contract.id, [contract.milestones[0]!.id]);
    expect(res.response.status).toBe(201);
    expect(res.data!.opener_role).toBe('worker');
    expect(await contractStatus(contract.id)).toBe('disputed');
    expect((await withdraw(worker, res.data!.id)).response.status).toBe(200);
    expect(await contractStatus(contract.id)).toBe('completed');

    const other = await fundedSandboxContract(client, await server.user('W'), [{ title: 'A', amount_cents: 0 }]);
    const pending = await pendingContract(client, await server.user('W2'));
    expectError(
      await open(client, pending.contract.id, [pending.contract.milestones[0]!.id]),
      409,
      'INVALID_STATE',
      /pending_owner_approval/,
    );
    // A milestone of another contract.
    expectInvalid(await open(client, other.contract.id, [contract.milestones[0]!.id]), 'body.milestone_ids[0]');
  });

  it('refuses a milestone that holds no money, invalid input, a second dispute (also a concurrent one)', async () => {
    const worker = await server.user('Refusals Worker');
    const { contract } = await activeSandboxContract(client, worker, [
      { title: 'A', amount_cents: 2_000 },
      { title: 'B', amount_cents: 1_000 },
    ]);
    const [id, unfunded] = contract.milestones.map((m) => m.id) as [string, string];
    const funding = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
      params: { path: { id: contract.id, milestoneId: id } },
    });
    await payOnSandboxPage(funding.data!.payment_page_url!, funding.data!.client_secret!);
    expectError(await open(client, contract.id, [id, unfunded]), 409, 'INVALID_STATE', /is pending/);
    expectInvalid(await open(client, contract.id, []), 'body.milestone_ids');
    expectInvalid(await open(client, contract.id, [id], '   '), 'body.description');
    expectInvalid(await open(client, contract.id, [id, id]), 'body.milestone_ids');
    expectInvalid(
      await client.api.POST('/api/contracts/{id}/disputes', {
        params: { path: { id: contract.id } },
        body: { reason: 'bored' as never, description: 'x', milestone_ids: [id] },
      }),
      'body.reason',
    );
    expectInvalid(await open(client, contract.id, [newId()]), 'body.milestone_ids[0]');
    expect(await contractStatus(contract.id)).toBe('active');

    const both = await Promise.all([open(client, contract.id, [id]), open(worker, contract.id, [id])]);
    expect(both.map((r) => r.response.status).sort()).toEqual([201, 409]);
    expectError(both.find((r) => r.response.status === 409)!, 409, 'CONFLICT', /already has a dispute/);
    expectError(await open(client, contract.id, [id]), 409, 'CONFLICT');
  });

  it('needs credentials and is not found for anyone but the parties', async () => {
    const { contract } = await disputed();
    expectError(await open({ api: server.anonymous }, contract.id, [contract.milestones[1]!.id]), 401, 'UNAUTHENTICATED');
    expectError(await open(stranger, contract.id, [contract.milestones[1]!.id]), 404, 'NOT_FOUND');
    expectError(await open(client, newId(), [contract.milestones[1]!.id]), 404, 'NOT_FOUND');
  });
});

describe('GET /api/disputes/{id}', () => {
  it('shows the dispute to both parties, with the evidence list only when asked', async () => {
    const { worker, dispute } = await disputed();
    expect((await addText(worker, dispute.id, 'Here is what was agreed.')).response.status).toBe(201);
    const plain = await get(worker, dispute.id);
    expect(plain.data).toMatchObject({ id: dispute.id, evidence_count: 1 });
    expect(plain.data).not.toHaveProperty('evidence');
    const full = await get(client, dispute.id, 1);
    expect(full.data!.evidence).toEqual([
      expect.objectContaining({ kind: 'text', text: 'Here is what was agreed.', author_role: 'worker' }),
    ]);
    expect((await get(client, dispute.id, 0)).data).not.toHaveProperty('evidence');
    expectInvalid(
      await client.api.GET('/api/disputes/{id}', { params: { path: { id: dispute.id }, query: { evidence: 2 as never } } }),
      'query.evidence',
    );
    expectError(await get(stranger, dispute.id), 404, 'NOT_FOUND');
    expectError(await get({ api: server.anonymous }, dispute.id), 401, 'UNAUTHENTICATED');
    expectError(await get(client, newId()), 404, 'NOT_FOUND');
  });
});

describe('GET /api/disputes', () => {
  it("lists the disputes of the caller's contracts, newest first, by status or contract, a page at a time", async () => {
    const [owner, worker] = await server.users('Listing Client', 'Listing Worker');
    const first = (await fundedSandboxContract(owner, worker, [{ title: 'Parser', amount_cents: 5_000 }])).contract;
    const second = (await fundedSandboxContract(owner, worker, [{ title: 'Docs', amount_cents: 1_000 }])).contract;
    const older = (await open(owner, first.id, [first.milestones[0]!.id])).data!;
    expect((await withdraw(owner, older.id)).response.status).toBe(200);
    const newer = (await open(worker, second.id, [second.milestones[0]!.id])).data!;
    expect((await addText(owner, newer.id, 'The docs were delivered late.')).response.status).toBe(201);
    const list = (user: { api: User['api'] }, query: Record<string, unknown> = {}) => user.api.GET('/api/disputes', { params: { query } });

    const all = await list(owner);
    expect(all.response.status).toBe(200);
    assertMatchesSpec('/api/disputes', 'get', 200, all.response.headers.get('content-type'), all.data);
    expect(all.data!.data.map((d) => [d.id, d.status, d.opener_role, d.evidence_count])).toEqual([
      [newer.id, 'open', 'worker', 1],
      [older.id, 'withdrawn', 'client', 0],
    ]);
    expect(all.data!.data[0]).not.toHaveProperty('evidence');
    expect((await list(worker)).data!.data.map((d) => d.id)).toEqual([newer.id, older.id]);
    expect((await list(owner, { status: 'open' })).data!.data.map((d) => d.id)).toEqual([newer.id]);
    expect((await list(owner, { contract_id: first.id })).data!.data.map((d) => d.id)).toEqual([older.id]);

    const page1 = (await list(owner, { limit: 1 })).data!;
    expect(page1.data.map((d) => d.id)).toEqual([newer.id]);
    const page2 = (await list(owner, { limit: 1, cursor: page1.next_cursor })).data!;
    expect(page2).toEqual({ data: [expect.objectContaining({ id: older.id })], next_cursor: null });

    // Strangers see none, not even by the contract's id; bad filters are refused.
    expect((await list(stranger)).data!.data).toEqual([]);
    expect((await list(stranger, { contract_id: first.id })).data!.data).toEqual([]);
    expectInvalid(await list(owner, { status: 'closed' }), 'query.status');
    expectInvalid(await list(owner, { contract_id: 'nope' }), 'query.contract_id');
    expectError(await list({ api: server.anonymous }), 401, 'UNAUTHENTICATED');
  });
});

describe('POST /api/disputes/{id}/response', () => {
  it('lets the other party respond once; not the opener, not a stranger', async () => {
    const { worker, dispute } = await disputed();
    expectError(await respond(client, dispute.id), 403, 'FORBIDDEN', /opened against/);
    expectError(await respond(stranger, dispute.id), 404, 'NOT_FOUND');
    expectError(await respond({ api: server.anonymous }, dispute.id), 401, 'UNAUTHENTICATED');
    expectInvalid(await respond(worker, dispute.id, ' '), 'body.text');
    const res = await respond(worker, dispute.id, '  The logs changed.  ');
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'responded', response: 'The logs changed.', responded_at: expect.any(String) });
    expectError(await respond(worker, dispute.id), 409, 'INVALID_STATE', /responded/);
    expect(await eventTypes('dispute', dispute.id)).toEqual(['dispute.opened', 'dispute.responded']);
    await vi.waitFor(
      async () => {
        const inbox = await client.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 1 } } });
        expect(inbox.data!.data[0]).toMatchObject({ type: 'dispute.responded', link: `${server.url}/#/disputes/${dispute.id}` });
      },
      { timeout: 60_000, interval: 100 },
    );
  });
});

describe('evidence', () => {
  it('takes statements and files from both parties; the files go to the parties only, inert', async () => {
    const { worker, dispute } = await disputed();
    const text = await addText(client, dispute.id, '  19 of 40 files fail.  ');
    expect(text.response.status).toBe(201);
    expect(text.data).toEqual({
      id: expect.any(String),
      dispute_id: dispute.id,
      author_user_id: client.userId,
      author_role: 'client',
      kind: 'text',
      text: '19 of 40 files fail.',
      file: null,
      created_at: expect.any(String),
    });
    const pdf = pdfFile('Run log');
    const file = await addFile(worker, dispute.id, pdf);
    expect(file.response.status).toBe(201);
    const url = `${server.url}/api/disputes/${dispute.id}/evidence/${file.data!.id}/file`;
    expect(file.data).toMatchObject({
      kind: 'file',
      text: null,
      author_role: 'worker',
      file: { content_type: 'application/pdf', size_bytes: pdf.length, url },
    });
    expect((await addFile(client, dispute.id, pngFile())).data!.file!.content_type).toBe('image/png');

    for (const who of [client, worker]) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${who.apiKey}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="evidence-${file.data!.id}.pdf"`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    }
    const refused = await fetch(url, { headers: { authorization: `Bearer ${stranger.apiKey}` } });
    expect(refused.status).toBe(404);
    assertMatchesSpec(
      '/api/disputes/{id}/evidence/{evidenceId}/file',
      'get',
      404,
      refused.headers.get('content-type'),
      await refused.json(),
    );
    expect((await fetch(url)).status).toBe(401);
    const ofText = await fetch(`${server.url}/api/disputes/${dispute.id}/evidence/${text.data!.id}/file`, {
      headers: { authorization: `Bearer ${client.apiKey}` },
    });
    expect(ofText.status).toBe(404);

    expect((await get(worker, dispute.id, 1)).data!.evidence!.map((e) => e.kind)).toEqual(['text', 'file', 'file']);
    expect(await eventTypes('dispute_evidence', file.data!.id)).toEqual(['dispute.evidence_added']);
  });

  it('refuses what the upload rules refuse, strangers, blank text, and evidence once the dispute is over', async () => {
    const { worker, dispute } = await disputed();
    expectError(await addFile(client, dispute.id, textFile()), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await addFile(stranger, dispute.id, pdfFile()), 404, 'NOT_FOUND');
    expectError(await addText(stranger, dispute.id, 'mine'), 404, 'NOT_FOUND');
    expectError(await addText({ api: server.anonymous }, dispute.id, 'mine'), 401, 'UNAUTHENTICATED');
    expectInvalid(await addText(worker, dispute.id, '\n'), 'body.text');
    expect((await get(client, dispute.id)).data!.evidence_count).toBe(0);
    expect((await withdraw(client, dispute.id)).response.status).toBe(200);
    expectError(await addText(worker, dispute.id, 'late'), 409, 'INVALID_STATE', /withdrawn/);
    expectError(await addFile(worker, dispute.id, pdfFile()), 409, 'INVALID_STATE');
  });

  it('takes at most 20 pieces per party', async () => {
    const { worker, dispute } = await disputed();
    for (let i = 0; i < 20; i++) expect((await addText(client, dispute.id, `point ${i}`)).response.status).toBe(201);
    expectError(await addText(client, dispute.id, 'one more'), 409, 'CONFLICT', /at most 20/);
    expect((await addText(worker, dispute.id, 'mine still fit')).response.status).toBe(201);
  });
});

describe('POST /api/disputes/{id}/withdraw', () => {
  it('lets the opener withdraw: the contract returns to active, nothing moves', async () => {
    const { worker, contract, dispute } = await disputed();
    expectError(await withdraw(worker, dispute.id), 403, 'FORBIDDEN', /opened the dispute/);
    expectError(await withdraw(stranger, dispute.id), 404, 'NOT_FOUND');
    expectError(await withdraw({ api: server.anonymous }, dispute.id), 401, 'UNAUTHENTICATED');
    expect((await respond(worker, dispute.id)).response.status).toBe(200);
    const res = await withdraw(client, dispute.id);
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: 'withdrawn', withdrawn_at: expect.any(String) });
    expectError(await withdraw(client, dispute.id), 409, 'INVALID_STATE', /withdrawn/);
    const after = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(after.data!.status).toBe('active');
    expect(after.data!.milestones.map((m) => m.status)).toEqual(['funded', 'funded']);
    expect((await eventTypes('contract', contract.id)).slice(-2)).toEqual(['contract.disputed', 'contract.dispute_closed']);
    expect(await eventTypes('dispute', dispute.id)).toEqual(['dispute.opened', 'dispute.responded', 'dispute.withdrawn']);
    // A new dispute may follow.
    expect((await open(worker, contract.id, [contract.milestones[1]!.id])).response.status).toBe(201);
  });
});
