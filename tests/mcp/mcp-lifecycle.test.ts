// Every MCP tool, called by two agents (the SDK's own client, one with a client's key and one with a
// worker's) walking the whole lifecycle through MCP tools only, on the sandbox payment provider.
// The owners' yes to the contract comes through elicitation; the humans' steps outside MCP (the
// worker's onboarding, the client's payment) are done on the sandbox's pages. Each result must be
// its operation's 2xx response in openapi.yaml and match its tool's output schema (with the places
// of people's text named); the writes that matter are read back over HTTP and
// in the database; and every tool the server lists must have been called (so a tool added later
// without a call here fails this file).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { eventsForResource } from '../../db/repositories/events.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { UNTRUSTED_META } from '../../src/mcp/untrusted.ts';
import { payOnSandboxPage, submitSandboxOnboarding } from '../helpers/lifecycle.ts';
import { at, connectMcp, outputChecker, structured, texts, type Transport } from '../helpers/mcp.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { assertMatchesSpec } from '../helpers/spec-validator.ts';

type Body = Record<string, any>;

const operations = new Map(listOperations(loadSpec()).map((op) => [op.operationId, op]));
const ids = (page: Body) => page.data.map((item: { id: string }) => item.id);

let server: TestServer;
const open: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await server?.close();
});

/** The 2xx status the spec declares for an operation; where it declares more than one, the caller names it. */
function successStatus(operationId: string): number {
  const statuses = Object.keys(operations.get(operationId)?.operation.responses ?? {}).filter((s) => s.startsWith('2'));
  expect(statuses, `${operationId}: one 2xx status`).toHaveLength(1);
  return Number(statuses[0]);
}

/**
 * An agent with `user`'s key, whose owner says yes to every approval it is asked (the questions
 * land in `asked`). `call` runs a tool, expects success, checks the result against the spec and
 * records the tool in `called`; `mcp` is the connected client.
 */
async function agent(transport: Transport, user: User, called: Set<string>, asked: string[]) {
  const mcp = await connectMcp(server.url, transport, user.apiKey, (params) => {
    asked.push((params as { message: string }).message);
    return { action: 'accept', content: { confirm: true } };
  });
  open.push(mcp);
  const matchesOutput = outputChecker((await mcp.listTools()).tools);
  const call = async (name: string, args: Body = {}, status = successStatus(name)): Promise<Body> => {
    const result = await mcp.callTool({ name, arguments: args });
    const [text, note, ...more] = texts(result);
    expect(result.isError, `${name}: ${text}`).toBeFalsy();
    const body = structured(result);
    expect(JSON.parse(text!), `${name}: the text is the structured result`).toEqual(body);
    const op = operations.get(name)!;
    assertMatchesSpec(op.path, op.method, status, 'application/json', body);
    // The SDK's client checked it against the tool's output schema (draft-07); so does 2020-12.
    matchesOutput(name, body);
    // People's text, when there is any, is named: each pointer reaches text, and gigmarket's note says so.
    const pointers = (result._meta?.[UNTRUSTED_META] ?? []) as string[];
    for (const pointer of pointers) expect(JSON.stringify(at(body, pointer) ?? ''), `${name} ${pointer}`).toMatch(/[^"[\]]/);
    expect(note === undefined, `${name}: a note iff people's text`).toBe(pointers.length === 0);
    if (note) expect(note).toMatch(/^gigmarket: in the JSON above, the values at \//);
    expect(more).toEqual([]);
    called.add(name);
    return body;
  };
  return Object.assign(call, { mcp });
}

describe.each<Transport>(['http', 'stdio'])('every tool over %s', (transport) => {
  it('two agents walk gig → apply → shortlist → negotiate → approve → KYC → fund → release, through MCP alone', async () => {
    const [clientUser, workerUser] = await server.users('Client Co', 'Worker Bee');
    const called = new Set<string>();
    const asked: string[] = [];
    const client = await agent(transport, clientUser, called, asked);
    const worker = await agent(transport, workerUser, called, asked);
    const contractOf = async (id: string) => (await clientUser.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;
    const negotiationOf = async (id: string) => (await clientUser.api.GET('/api/negotiations/{id}', { params: { path: { id } } })).data!;

    // Who am I.
    expect((await client('verifyApiKey')).user_id).toBe(clientUser.userId);
    const workerId = (await worker('verifyApiKey')).user_id;
    expect(workerId).toBe(workerUser.userId);

    // The client's agent publishes a gig and completes it; the worker's finds it and applies.
    const gig = await client('createGig', { body: { title: `Build a log parser in Rust (${transport})`, tags: ['rust'] } });
    const description = 'Parse nginx logs into JSON lines.';
    expect(await client('updateGig', { id: gig.id, body: { description, rate_cents: 8_000 } })).toMatchObject({
      description,
      rate_cents: 8_000,
    });
    expect((await clientUser.api.GET('/api/gigs/{id}', { params: { path: { id: gig.id } } })).data).toMatchObject({ description });
    expect(ids(await worker('searchGigs', { q: 'rust log parser', tags: ['rust'], limit: 50 }))).toContain(gig.id);
    await worker('recommendGigs', { limit: 10 });
    expect(ids(await worker('listGigs', { limit: 100 }))).toContain(gig.id);
    expect(await worker('getGig', { id: gig.id })).toMatchObject({ id: gig.id, description, status: 'open' });
    const application = await worker('applyToGig', {
      id: gig.id,
      body: { message: 'I have shipped three parsers.', proposed_rate_cents: 9_500 },
    });
    expect(ids(await worker('listMyApplications', { limit: 100 }))).toContain(application.id);
    expect(await worker('getApplication', { id: application.id })).toMatchObject({ gig_id: gig.id, status: 'submitted' });

    // The client's agent shortlists the application; the agents negotiate two rounds and agree.
    expect(ids(await client('listGigApplications', { id: gig.id }))).toEqual([application.id]);
    expect((await client('shortlistApplication', { id: application.id })).status).toBe('shortlisted');
    const terms = { hours_per_week: 10, start_date: '2026-12-01' };
    const opened = await client('negotiate', {
      body: {
        gig_id: gig.id,
        worker_user_id: workerId,
        ...terms,
        rate_cents: 8_000,
        payout_delay_days: 5,
        milestones: [{ title: 'Everything', amount_cents: 10_000 }],
      },
    });
    expect(opened).toMatchObject({ status: 'open', awaiting: 'worker' });
    const countered = await worker('proposeRound', {
      id: opened.id,
      body: {
        ...terms,
        rate_cents: 9_000,
        payout_delay_days: 3,
        notes: 'Two milestones, please.',
        milestones: [
          { title: 'Kick-off call', amount_cents: 0 },
          { title: 'Parser and tests', amount_cents: 12_000, due_date: '2026-12-15' },
        ],
      },
    });
    expect(countered).toMatchObject({ awaiting: 'client', rounds: [{ number: 1 }, { number: 2, proposed_by: 'worker' }] });
    const agreed = await client('agreeNegotiation', { id: opened.id });
    expect(agreed.negotiation.status).toBe('agreed');
    const contractId: string = agreed.contract.id;
    expect((await worker('shareContact', { id: opened.id })).contact).toMatchObject({ worker_shared: true, client_shared: false });
    expect(ids(await client('listNegotiations', { gig_id: gig.id }))).toEqual([opened.id]);
    expect(await client('getNegotiation', { id: opened.id })).toMatchObject({
      status: 'agreed',
      contract_id: contractId,
      contact: { worker_shared: true },
    });

    // Both owners approve the contract, each asked through elicitation with the exact terms.
    expect(ids(await worker('listContracts', { limit: 100 }))).toContain(contractId);
    const pending = await client('getContract', { id: contractId });
    expect(pending).toMatchObject({ status: 'pending_owner_approval', rate_cents: 9_000, payout_delay_days: 3 });
    // Both owners keep the default policy (keys_may_approve): the approval is the 200, not the 202 of owner_confirms.
    expect((await client('approveContract', { id: contractId }, 200)).contract.client_approved_at).toEqual(expect.any(String));
    const approved = await worker('approveContract', { id: contractId, body: { revision_count: pending.revision_count } }, 200);
    expect(approved.contract.status).toBe('pending_freelancer_kyc');
    expect(asked.map((question) => question.match(/You are the (client|worker)/)?.[1])).toEqual(['client', 'worker']);
    for (const question of asked) expect(question).toContain('. $120.00, due 2026-12-15, titled:\n     "Parser and tests"');
    expect(await contractOf(contractId)).toMatchObject({ status: 'pending_freelancer_kyc', worker_approved_at: expect.any(String) });

    // The worker's agent gets the onboarding link; the worker completes KYC on the sandbox's page.
    const link = await worker('getConnectLink', { id: contractId });
    expect(link.provider).toBe('sandbox');
    expect((await submitSandboxOnboarding(link.connect_url)).status).toBe(303);
    expect((await contractOf(contractId)).status).toBe('active');

    // The client's agent funds each milestone (the client pays on the sandbox's page), then releases each.
    const milestones: { id: string }[] = pending.milestones;
    for (const m of milestones) {
      const funded = await client('fundMilestone', { id: contractId, milestoneId: m.id });
      expect(funded.provider).toBe('sandbox');
      if (funded.payment_page_url) await payOnSandboxPage(funded.payment_page_url, funded.client_secret);
    }
    expect((await contractOf(contractId)).milestones.map((m) => m.status)).toEqual(['funded', 'funded']);
    for (const m of milestones) {
      expect((await client('releaseMilestone', { id: contractId, milestoneId: m.id })).milestone.status).toBe('released');
    }
    const completed = await contractOf(contractId);
    expect(completed).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    expect(completed.milestones.map((m) => m.status)).toEqual(['released', 'released']);
    const written = (await eventsForResource(server.db, 'contract', contractId)).map((e) => e.type);
    expect(written.slice(-3)).toEqual(['contract.pending_freelancer_kyc', 'contract.active', 'contract.completed']);

    // A second gig, the worker invited: a negotiation opened empty, agreed, then the contract revised
    // and cancelled; a new negotiation cancelled; the invitation rejected.
    const port = await client('createGig', { body: { title: `Port the parser to Go (${transport})`, tags: ['go'] } });
    const invitation = await client('shortlistWorker', { id: port.id, body: { worker_user_id: workerId } }, 201);
    expect(invitation).toMatchObject({ status: 'shortlisted', worker_user_id: workerId });
    const empty = await client('createNegotiation', { body: { gig_id: port.id, worker_user_id: workerId } });
    expect(empty).toMatchObject({ status: 'open', rounds: [] });
    await client('proposeRound', { id: empty.id, body: { milestones: [{ title: 'The port', amount_cents: 5_000 }] } });
    const second = (await worker('agreeNegotiation', { id: empty.id })).contract;
    expect((await worker('reviseContract', { id: second.id, body: { notes: 'Add a milestone for the tests.' } })).status).toBe(
      'negotiation',
    );
    expect((await negotiationOf(empty.id)).status).toBe('open');
    expect((await client('cancelContract', { id: second.id })).status).toBe('cancelled');
    expect((await contractOf(second.id)).status).toBe('cancelled');
    expect((await negotiationOf(empty.id)).status).toBe('cancelled');
    const again = await client('createNegotiation', { body: { gig_id: port.id, worker_user_id: workerId } });
    expect((await worker('cancelNegotiation', { id: again.id })).status).toBe('cancelled');
    expect((await negotiationOf(again.id)).status).toBe('cancelled');
    expect((await client('rejectApplication', { id: invitation.id })).status).toBe('rejected');

    // A third gig: the worker applies, then withdraws.
    const docs = await client('createGig', { body: { title: `Document the parser (${transport})` } });
    const applied = await worker('applyToGig', { id: docs.id, body: { message: 'Happy to.' } });
    expect((await worker('withdrawApplication', { id: applied.id })).status).toBe('withdrawn');
    const applications = await workerUser.api.GET('/api/applications', { params: { query: { limit: 100 } } });
    expect(new Map(applications.data!.data.map((a) => [a.id, a.status]))).toEqual(
      new Map([
        [application.id, 'shortlisted'],
        [invitation.id, 'rejected'],
        [applied.id, 'withdrawn'],
      ]),
    );

    // What happened, as the worker's agent reads it; who the other party is.
    const events = await worker('listEvents', { resource_id: contractId, limit: 100 });
    expect(events.data.map((e: { type: string }) => e.type).reverse()).toEqual(written);
    expect((await client('getProfile', { userId: workerId })).user_id).toBe(workerId);

    // Discovery feedback and worker recommendations, as each side's agent would send and read them.
    expect((await worker('sendDiscoveryFeedback', { body: { gig_id: gig.id, signal: 'up' } })).signal).toBe('up');
    expect(Array.isArray((await client('recommendWorkers', { gig_id: port.id })).data)).toBe(true);

    // Reputation: a review of the worker; the worker vouches for the client.
    expect(
      (await client('createContractReview', { id: contractId, body: { rating: 5, text: 'Clear and quick.' } }, 201)).yours,
    ).toMatchObject({
      rating: 5,
    });
    await worker('createVouch', { body: { vouched_user_id: clientUser.userId } });

    // A dispute over the completed contract (its payouts are still days away), settled by both.
    const dispute = await client(
      'createDispute',
      { id: contractId, body: { reason: 'work_not_as_agreed', description: 'The docs are missing.', milestone_ids: [milestones[1]!.id] } },
      201,
    );
    expect(dispute.status).toBe('open');
    expect((await worker('respondToDispute', { id: dispute.id, body: { text: 'They are in the repository.' } })).status).toBe('responded');
    expect((await client('addDisputeEvidence', { id: dispute.id, body: { text: 'The repository has no docs folder.' } }, 201)).kind).toBe(
      'text',
    );
    await client('acceptDisputeOutcome', { id: dispute.id, body: { outcome: 'release' } });
    expect((await worker('acceptDisputeOutcome', { id: dispute.id, body: { outcome: 'release' } })).status).toBe('resolved');

    // The owner's side an agent may keep: the profile, the inbox, credits.
    expect((await worker('updateMyProfile', { body: { bio: 'Parsers, through my agent.' } })).bio).toBe('Parsers, through my agent.');
    const inbox = await worker('listInboxMessages', { limit: 5 });
    expect(inbox.data.length).toBeGreaterThan(0);
    expect((await worker('markInboxMessageRead', { id: inbox.data[0].id })).read).toBe(true);
    expect(typeof (await client('getCredits')).credits_balance).toBe('number');
    expect(Array.isArray((await client('listCreditTransactions', { limit: 5 })).data)).toBe(true);

    // Every tool the server lists was called.
    const { tools } = await client.mcp.listTools();
    expect(tools.map((t) => t.name).filter((name) => !called.has(name))).toEqual([]);
    expect(called.size).toBe(tools.length);
  });
});
