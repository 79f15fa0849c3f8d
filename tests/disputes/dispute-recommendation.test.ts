// The advisory recommendation, against a local fake chat-completions endpoint (real HTTP on
// 127.0.0.1): what is sent (terms, rounds, milestones, the dispute and its evidence; no names,
// emails, contact details, ids of people or credentials), the strict check of the answer (a
// malformed or failing answer is 502, a slow one 504, and neither changes anything), and 503
// without LLM_URL: never a made-up recommendation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsForResource } from '../../db/repositories/events.ts';
import { checkAnswer, redact } from '../../src/domain/recommendation.ts';
import { startFakeChat, type Answer, type FakeChat } from '../fakes/chat-completions.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { expectError } from '../helpers/expect-error.ts';
import { fundedSandboxContract } from '../helpers/lifecycle.ts';
import { formWith, pdfFile } from '../helpers/files.ts';

let chat: FakeChat;
let server: TestServer;
let client: User;
let stranger: User;

beforeAll(async () => {
  chat = await startFakeChat();
  server = await startTestServer(chat.env);
  [client, stranger] = await server.users('Rec Client Carol', 'Stranger');
  await client.api.PATCH('/api/profile/me', { body: { contact_details: 'carol-private@example.com, +44 20 7946 0958' } });
});
afterAll(async () => {
  await server?.close();
  await chat?.close();
});

const recommend = (user: { api: User['api'] }, id: string) =>
  user.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id } } });
const getDispute = async (id: string) => (await client.api.GET('/api/disputes/{id}', { params: { path: { id } } })).data!;
const eventTypes = async (id: string) => (await eventsForResource(server.db, 'dispute', id)).map((e) => e.type);

/** A responded dispute with a statement (quoting an email and a phone number) and a file. */
async function responded() {
  const worker = await server.user('Rec Worker Walter');
  await worker.api.PATCH('/api/profile/me', { body: { contact_details: 'walter@example.org' } });
  const { contract } = await fundedSandboxContract(client, worker, [
    { title: 'Parser', amount_cents: 5_000 },
    { title: 'Docs', amount_cents: 1_000 },
  ]);
  const opened = await client.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: contract.id } },
    body: {
      reason: 'work_not_as_agreed',
      description: 'The parser fails on 19 of the 40 agreed files.',
      milestone_ids: [contract.milestones[0]!.id],
    },
  });
  const id = opened.data!.id;
  const statement = await client.api.POST('/api/disputes/{id}/evidence', {
    params: { path: { id } },
    body: { text: 'Mail me at carol.home@example.net or call +1 (555) 010-4477 about the 19 failing files (2026-12-15 run).' },
  });
  const file = await worker.api.POST('/api/disputes/{id}/evidence/files', {
    params: { path: { id } },
    body: formWith('file', pdfFile('sample set')) as never,
    bodySerializer: (body: unknown) => body as never,
  });
  await worker.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'Those files were added later.' } });
  return { worker, contract, id, statement: statement.data!, file: file.data! };
}

describe('POST /api/disputes/{id}/recommendation', () => {
  it('asks the model and stores its advice, labelled advisory, for both parties', async () => {
    const { worker, id, statement } = await responded();
    const before = chat.requests.length;
    const res = await recommend(worker, id);
    expect(res.response.status).toBe(200);
    expect(res.data!.recommendation).toEqual({
      advisory: true,
      notice: expect.stringMatching(/binds nobody/),
      outcome: 'split',
      worker_share_percent: 60,
      reasoning: expect.stringContaining(`[${statement.id}]`),
      cited_evidence_ids: [statement.id],
      confidence: 0.7,
      model: 'fake-judge-1',
      created_at: expect.any(String),
    });
    // Advice only: nothing else moved.
    expect(res.data).toMatchObject({ status: 'responded', acceptances: { client: null, worker: null }, resolution: null });
    expect((await getDispute(id)).recommendation).toEqual(res.data!.recommendation);
    expect((await eventTypes(id)).at(-1)).toBe('dispute.recommended');
    expect(chat.requests.length).toBe(before + 1);
  });

  it('sends the terms, the approvals of them, rounds, milestones, dispute and evidence, with no people, contact details or secrets', async () => {
    const { worker, contract, id, statement, file } = await responded();
    await recommend(client, id);
    const sent = chat.requests.at(-1)!;
    expect(sent.authorization).toBe('Bearer sk-fake-llm');
    expect(sent.body.model).toBe('judge');
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'dispute_recommendation', strict: true } });
    expect(sent.facts).toMatchObject({
      gig: { title: 'Build a Rust CLI' },
      contract: { currency: 'USD', rate_cents: 8000, hours_per_week: 10, payout_delay_days: 3, terms_hash: contract.terms_hash },
      // The owners' approvals cite the exact terms (their receipts' hashes), with no one's id.
      approvals: [
        { party_role: 'client', revision_count: 0, terms_hash: contract.terms_hash, method: 'api_key', approved_at: expect.any(String) },
        { party_role: 'worker', revision_count: 0, terms_hash: contract.terms_hash, method: 'api_key', approved_at: expect.any(String) },
      ],
      rounds: [{ number: 1, proposed_by: 'client', milestones: [{ title: 'Parser', amount_cents: 5_000 }, { title: 'Docs' }] }],
      milestones: [
        { id: contract.milestones[0]!.id, status: 'funded', disputed: true },
        { id: contract.milestones[1]!.id, disputed: false },
      ],
      dispute: { opened_by: 'client', reason: 'work_not_as_agreed', response: 'Those files were added later.' },
      evidence: [
        { id: statement.id, from: 'client', kind: 'text', file: null },
        {
          id: file.id,
          from: 'worker',
          kind: 'file',
          text: null,
          file: { content_type: 'application/pdf', size_bytes: file.file!.size_bytes },
        },
      ],
    });
    // Free text is redacted; the date stays.
    expect(sent.facts.evidence[0].text).toBe(
      'Mail me at [email removed] or call [phone removed] about the 19 failing files (2026-12-15 run).',
    );
    const everything = JSON.stringify(sent.body);
    for (const secret of [
      client.userId,
      worker.userId,
      'Carol',
      'Walter',
      'carol-private@example.com',
      'walter@example.org',
      'carol.home@example.net',
      '7946',
      client.apiKey,
      worker.apiKey,
      'gm_live_',
    ]) {
      expect(everything, secret).not.toContain(secret);
    }
  });

  it('refuses a malformed or failing answer with 502 and a slow one with 504, changing nothing', async () => {
    const { id, statement } = await responded();
    const valid = {
      outcome: 'refund',
      worker_share_percent: null,
      reasoning: 'Because.',
      cited_evidence_ids: [statement.id],
      confidence: 0.5,
    };
    const malformed: Answer[] = [
      { content: 'I think the client is right.' },
      { content: { ...valid, confidence: 1.5 } },
      { content: { ...valid, worker_share_percent: 40 } },
      { content: { ...valid, outcome: 'split' } },
      { content: { ...valid, outcome: 'escrow' } },
      { content: { ...valid, cited_evidence_ids: ['00000000-0000-7000-8000-000000000000'] } },
      { content: { ...valid, reasoning: ' ' } },
      { content: { ...valid, verdict: 'final' } },
      { content: (({ confidence: _c, ...rest }) => rest)(valid) },
      { raw: '{"choices": []}' },
      { raw: 'not json' },
      { status: 500 },
      { status: 429 },
    ];
    chat.answerNext(...malformed);
    for (const answer of malformed) {
      expectError(await recommend(client, id), 502, 'RECOMMENDATION_FAILED', /nothing was changed/);
      expect(answer).toBeDefined();
    }
    chat.answerNext({ content: valid, delayMs: 1_500 });
    expectError(await recommend(client, id), 504, 'RECOMMENDATION_TIMEOUT', /within 1000 ms/);
    const after = await getDispute(id);
    expect(after.recommendation).toBeNull();
    expect(await eventTypes(id)).not.toContain('dispute.recommended');
    // A later valid answer replaces nothing but the (absent) previous one; after new evidence, a
    // second replaces the first.
    chat.answerNext({ content: valid });
    expect((await recommend(client, id)).data!.recommendation).toMatchObject({ outcome: 'refund', worker_share_percent: null });
    await client.api.POST('/api/disputes/{id}/evidence', { params: { path: { id } }, body: { text: 'One more failing file.' } });
    expect((await recommend(client, id)).data!.recommendation).toMatchObject({ outcome: 'split', worker_share_percent: 60 });
  });

  it('answers a recommendation asked for again within minutes with the stored one; new evidence asks the model again', async () => {
    const { worker, id } = await responded();
    const before = chat.requests.length;
    const first = await recommend(client, id);
    expect(first.response.status).toBe(200);
    const again = await recommend(worker, id);
    expect(again.response.status).toBe(200);
    expect(again.data!.recommendation).toEqual(first.data!.recommendation);
    expect(chat.requests.length).toBe(before + 1);
    expect((await eventTypes(id)).filter((t) => t === 'dispute.recommended')).toHaveLength(1);

    await worker.api.POST('/api/disputes/{id}/evidence', { params: { path: { id } }, body: { text: 'The log of the agreed test run.' } });
    const fresh = await recommend(client, id);
    expect(fresh.response.status).toBe(200);
    expect(chat.requests.length).toBe(before + 2);
    expect(fresh.data!.recommendation!.created_at).not.toBe(first.data!.recommendation!.created_at);
  });

  it('removes credentials, spelled-out addresses and full-width numbers before the model sees them', async () => {
    const { id } = await responded();
    const text =
      `My key ${client.apiKey} and our Stripe key sk_live_51HxyzABCDEFGHIJ leaked; write to carol (at) example (dot) com ` +
      'or carol[at]example.net, call ＋４４ ２０ ７９４６ ０９５８; password: hunter2';
    await client.api.POST('/api/disputes/{id}/evidence', { params: { path: { id } }, body: { text } });
    expect((await recommend(client, id)).response.status).toBe(200);
    const sent = JSON.stringify(chat.requests.at(-1)!.body);
    for (const secret of [
      client.apiKey,
      'gm_live_',
      'sk_live_',
      'carol (at)',
      'carol[at]',
      'example (dot) com',
      '７９４６',
      '7946',
      'hunter2',
    ]) {
      expect(sent, secret).not.toContain(secret);
    }
    expect(sent).toContain('[credential removed]');
    expect(sent).toContain('[email removed]');
    expect(sent).toContain('[phone removed]');
  });

  it('stops reading an answer as soon as it passes 256 KiB, and refuses it with 502', async () => {
    const { id } = await responded();
    const total = 256 * 1024 * 1024;
    chat.answerNext({ flood: total });
    // Refused for its size (502 RECOMMENDATION_FAILED), not timed out (504 RECOMMENDATION_TIMEOUT).
    expectError(await recommend(client, id), 502, 'RECOMMENDATION_FAILED', /more than a recommendation can hold/);
    const flood = await chat.floods.at(-1)!;
    expect(flood.complete).toBe(false); // we hung up...
    expect(flood.written).toBeLessThan(total / 8); // ...long before the end
    expect((await getDispute(id)).recommendation).toBeNull();
  });

  it('is for the parties of a responded dispute only', async () => {
    const { worker, contract } = await responded();
    const open = await client.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: contract.id } },
      body: { reason: 'other', description: 'x', milestone_ids: [contract.milestones[1]!.id] },
    });
    expectError(open, 409, 'CONFLICT'); // one live dispute per contract: use another contract
    const other = await fundedSandboxContract(client, worker, [{ title: 'A', amount_cents: 1_000 }]);
    const fresh = await client.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: other.contract.id } },
      body: { reason: 'other', description: 'x', milestone_ids: [other.contract.milestones[0]!.id] },
    });
    const before = chat.requests.length;
    expectError(await recommend(client, fresh.data!.id), 409, 'INVALID_STATE', /responded/);
    expectError(await recommend(stranger, fresh.data!.id), 404, 'NOT_FOUND');
    expectError(await recommend({ api: server.anonymous }, fresh.data!.id), 401, 'UNAUTHENTICATED');
    expect(chat.requests.length).toBe(before); // the model was not asked
  });
});

describe('without LLM_URL', () => {
  it('answers 503 RECOMMENDATION_UNAVAILABLE, and says so', async () => {
    const bare = await startTestServer();
    try {
      const c = await bare.user('C');
      const w = await bare.user('W');
      const { contract } = await fundedSandboxContract(c, w, [{ title: 'A', amount_cents: 1_000 }]);
      const opened = await c.api.POST('/api/contracts/{id}/disputes', {
        params: { path: { id: contract.id } },
        body: { reason: 'other', description: 'x', milestone_ids: [contract.milestones[0]!.id] },
      });
      const id = opened.data!.id;
      await w.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'no' } });
      expectError(await recommend(c, id), 503, 'RECOMMENDATION_UNAVAILABLE', /no language model is configured.*none is made up/);
      expect((await c.api.GET('/api/disputes/{id}', { params: { path: { id } } })).data!.recommendation).toBeNull();
    } finally {
      await bare.close();
    }
  }, 120_000); // a second server of its own, and a funded contract on it
});

describe('the rules as data', () => {
  it('redacts emails and phone numbers, not dates or amounts', () => {
    expect(redact('a.b+c@mail.example.co.uk said 2026-12-15: pay 120000 cents, call 020 7946 0958 or +1 555 0100')).toBe(
      '[email removed] said 2026-12-15: pay 120000 cents, call [phone removed] or [phone removed]',
    );
  });

  it('redacts credentials by their shapes, keeping the name of a named one, and not ordinary words', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    expect(redact(`key gm_live_${'A1'.repeat(20)}, whsec_${'b'.repeat(32)}, ghp_${'c'.repeat(36)}, AKIAABCDEFGHIJKLMNOP, ${jwt}`)).toBe(
      'key [credential removed], [credential removed], [credential removed], [credential removed], [credential removed]',
    );
    expect(redact('token=abc123 and password: hunter2 stay named')).toBe(
      'token=[credential removed] and password: [credential removed] stay named',
    );
    expect(redact('the parser tokenizes 19 files; the secret sauce is tests')).toBe(
      'the parser tokenizes 19 files; the secret sauce is tests',
    );
  });

  it('takes an answer only as the schema says', () => {
    const ok = { outcome: 'split', worker_share_percent: 30, reasoning: 'r', cited_evidence_ids: ['e1'], confidence: 0 };
    expect(checkAnswer(ok, ['e1'])).toEqual({ answer: { ...ok } });
    expect(checkAnswer({ ...ok, cited_evidence_ids: ['e1', 'e1'] }, ['e1'])).toHaveProperty('problem');
    expect(checkAnswer({ ...ok, worker_share_percent: 30.5 }, ['e1'])).toHaveProperty('problem');
    expect(checkAnswer({ ...ok, confidence: Number.NaN }, ['e1'])).toHaveProperty('problem');
  });
});
