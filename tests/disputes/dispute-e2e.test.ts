// Disputes walked end to end over HTTP, on the sandbox provider and on Stripe (the real stripe-node
// SDK against the local fake): a dispute opened while a payout is due, evidence (a statement and a
// file), the response, an advisory recommendation (a local fake chat-completions endpoint), and a
// resolution that refunds as recommended (the payout held meanwhile, then sent); a release; a split
// (a partial refund, the rest paid out). A payout day is one second.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { milestones as milestonesTable } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { activeStripeContract, payAtStripe, startStripeServer } from '../helpers/stripe-mode.ts';
import { fundedSandboxContract, type Milestone } from '../helpers/lifecycle.ts';
import { formWith, pdfFile } from '../helpers/files.ts';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';

type Provider = 'sandbox' | 'stripe';

describe.each<Provider>(['sandbox', 'stripe'])('a dispute on the %s provider', (provider) => {
  let server: TestServer;
  let fake: FakeStripe | undefined;
  let chat: FakeChat;
  let client: User;

  beforeAll(async () => {
    chat = await startFakeChat();
    if (provider === 'stripe') {
      fake = await startFakeStripe();
      server = await startStripeServer(fake, { PAYOUT_DAY_SECONDS: '1', ...chat.env });
    } else {
      server = await startTestServer({ PAYOUT_DAY_SECONDS: '1', ...chat.env });
    }
    client = await server.user('E2E Client');
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await chat?.close();
  });

  /** A new worker and an active contract whose milestones are all funded, on this provider. */
  async function funded(milestones: Milestone[]) {
    const worker = await server.user('E2E Worker');
    if (provider === 'sandbox') return { worker, contract: (await fundedSandboxContract(client, worker, milestones)).contract };
    const { contract } = await activeStripeContract(server, fake!, client, worker, milestones);
    for (const m of contract.milestones) {
      const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
        params: { path: { id: contract.id, milestoneId: m.id } },
      });
      expect((await payAtStripe(server, fake!, res.data!.payment_id!)).delivered.status).toBe(200);
    }
    return { worker, contract: (await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } })).data! };
  }

  const getContract = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;
  const row = async (id: string) => (await server.db.select().from(milestonesTable).where(eq(milestonesTable.id, id)))[0]!;
  const paidEvents = async (id: string) => (await eventsForResource(server.db, 'milestone', id)).filter((e) => e.type === 'milestone.paid');
  const accept = (user: User, id: string, outcome: 'release' | 'refund' | 'split', share?: number) =>
    user.api.POST('/api/disputes/{id}/resolution', {
      params: { path: { id } },
      body: (share === undefined ? { outcome } : { outcome, worker_share_percent: share }) as never,
    });
  const open = (user: User, contractId: string, milestoneIds: string[]) =>
    user.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: contractId } },
      body: { reason: 'work_not_as_agreed', description: 'The parser fails on 19 of the 40 agreed files.', milestone_ids: milestoneIds },
    });
  const settledDispute = (id: string) =>
    vi.waitFor(
      async () => {
        const d = await client.api.GET('/api/disputes/{id}', { params: { path: { id } } });
        expect(d.data!.resolution?.settled_at).toEqual(expect.any(String));
      },
      { timeout: 60_000, interval: 100 },
    );
  /** The refunds the provider made for a milestone: the fake's records, or the sandbox's derived id. */
  const refundsAt = (milestoneId: string) =>
    fake ? [...fake.refunds.values()].filter((r) => (r.metadata as Record<string, string>).milestone_id === milestoneId) : [];

  it('refunds the disputed milestone; the payout that fell due meanwhile is held, then sent', async () => {
    const { worker, contract } = await funded([
      { title: 'Parser', amount_cents: 5_000 },
      { title: 'Packaging', amount_cents: 3_000 },
    ]);
    const [parser, packaging] = contract.milestones.map((m) => m.id) as [string, string];
    // Packaging is released (its payout due 3 s later); then the client disputes the parser.
    const released = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
      params: { path: { id: contract.id, milestoneId: packaging } },
    });
    expect(released.response.status).toBe(200);
    const opened = await open(client, contract.id, [parser]);
    expect(opened.response.status).toBe(201);
    const id = opened.data!.id;

    // Evidence from both sides, a statement and a file.
    const statement = await client.api.POST('/api/disputes/{id}/evidence', {
      params: { path: { id } },
      body: { text: 'Run of the agreed sample set: 19 of 40 files fail with "unexpected token".' },
    });
    const file = await worker.api.POST('/api/disputes/{id}/evidence/files', {
      params: { path: { id } },
      body: formWith('file', pdfFile('Agreed sample set v1')) as never,
      bodySerializer: (body: unknown) => body as never,
    });
    expect([statement.response.status, file.response.status]).toEqual([201, 201]);
    const responded = await worker.api.POST('/api/disputes/{id}/response', {
      params: { path: { id } },
      body: { text: 'The 19 files were added after we agreed; the agreed set passes.' },
    });
    expect(responded.data!.status).toBe('responded');

    // Past the packaging payout's due time and a hold: held, not paid.
    await vi.waitFor(async () => expect((await row(packaging)).payoutDueAt!.getTime()).toBeLessThan(Date.now() - 1_500), {
      timeout: 60_000,
      interval: 200,
    });
    expect((await getContract(contract.id)).milestones.map((m) => m.status)).toEqual(['funded', 'released']);
    expect(await paidEvents(packaging)).toEqual([]);

    // The client asks for a recommendation: a refund, citing the statement; advice only.
    chat.answerNext({
      content: {
        outcome: 'refund',
        worker_share_percent: null,
        reasoning: `The agreed sample set fails [${statement.data!.id}]; the file shows the set, not a passing run.`,
        cited_evidence_ids: [statement.data!.id],
        confidence: 0.8,
      },
    });
    const advised = await client.api.POST('/api/disputes/{id}/recommendation', { params: { path: { id } } });
    expect(advised.data).toMatchObject({ status: 'responded', recommendation: { advisory: true, outcome: 'refund', confidence: 0.8 } });
    expect(chat.requests.at(-1)!.facts.evidence.map((e: { kind: string }) => e.kind)).toEqual(['text', 'file']);

    // Both accept the recommended refund of the parser.
    expect((await accept(worker, id, 'refund')).data!.status).toBe('responded');
    const resolved = await accept(client, id, 'refund');
    expect(resolved.data).toMatchObject({ status: 'resolved', resolution: { milestones: [{ worker_cents: 0, refund_cents: 5_000 }] } });
    await settledDispute(id);
    const refunded = await row(parser);
    expect(refunded).toMatchObject({ status: 'refunded', refundedCents: 5_000 });
    if (fake) {
      expect(refundsAt(parser)).toEqual([
        expect.objectContaining({ id: refunded.refundId, amount: 5_000, payment_intent: refunded.paymentId }),
      ]);
    } else {
      expect(refunded.refundId).toBe(`re_sandbox_${parser.replace(/-/g, '')}`);
    }
    // Every milestone is settled: the contract is completed, and the held payout is sent, once.
    await vi.waitFor(async () => expect((await getContract(contract.id)).milestones.map((m) => m.status)).toEqual(['refunded', 'paid']), {
      timeout: 60_000,
      interval: 100,
    });
    expect((await getContract(contract.id)).status).toBe('completed');
    expect(await paidEvents(packaging)).toHaveLength(1);
  });

  it('releases a withheld milestone to the worker, who is paid at once', async () => {
    const { worker, contract } = await funded([{ title: 'Parser', amount_cents: 4_000 }]);
    const milestone = contract.milestones[0]!.id;
    const opened = await open(worker, contract.id, [milestone]);
    const id = opened.data!.id;
    await client.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'Fine, it works.' } });
    await accept(client, id, 'release');
    expect((await accept(worker, id, 'release')).data!.status).toBe('resolved');
    await settledDispute(id);
    await vi.waitFor(async () => expect((await row(milestone)).status).toBe('paid'), { timeout: 60_000, interval: 100 });
    expect(refundsAt(milestone)).toEqual([]);
    if (fake) {
      const transfers = [...fake.transfers.values()].filter((t) => (t.metadata as Record<string, string>).milestone_id === milestone);
      expect(transfers.map((t) => t.amount)).toEqual([4_000]);
    }
  });

  it('splits: a partial refund to the client, the rest paid to the worker', async () => {
    const { worker, contract } = await funded([{ title: 'Parser', amount_cents: 10_000 }]);
    const milestone = contract.milestones[0]!.id;
    const id = (await open(client, contract.id, [milestone])).data!.id;
    await worker.api.POST('/api/disputes/{id}/response', { params: { path: { id } }, body: { text: 'Most of it works.' } });
    await accept(client, id, 'split', 65);
    await accept(worker, id, 'split', 65);
    await settledDispute(id);
    await vi.waitFor(async () => expect((await row(milestone)).status).toBe('paid'), { timeout: 60_000, interval: 100 });
    expect(await row(milestone)).toMatchObject({ refundedCents: 3_500 });
    if (fake) {
      expect(refundsAt(milestone).map((r) => r.amount)).toEqual([3_500]);
      const transfers = [...fake.transfers.values()].filter((t) => (t.metadata as Record<string, string>).milestone_id === milestone);
      expect(transfers.map((t) => t.amount)).toEqual([6_500]);
    }
  });
});
