// The whole path from a gig to a paid milestone, over HTTP with two users' API keys, on the Stripe
// provider (the real stripe-node SDK against the local fake of Stripe's API, webhooks signed as
// Stripe signs them). Every status and every event on the way is checked.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.ts';
import type { TestServer } from '../helpers/server.ts';
import { CONNECT_WEBHOOK_SECRET, accountIdOf, deliver, startStripeServer } from '../helpers/stripe-mode.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { asApproval } from '../helpers/lifecycle.ts';

const DAY_SECONDS = 1;

let fake: FakeStripe;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startStripeServer(fake, { PAYOUT_DAY_SECONDS: String(DAY_SECONDS) });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

type Resource = 'gig' | 'application' | 'negotiation' | 'contract' | 'milestone';
const eventTypes = async (type: Resource, id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);

it('walks gig → apply → shortlist → negotiate → agree → approve → KYC → fund → pay → release → payout → completed', async () => {
  const [client, worker] = await server.users('Client Co', 'Worker Bee');
  const both = [client, worker];
  const contractAs = async (user: typeof client, id: string) => {
    const res = await user.api.GET('/api/contracts/{id}', { params: { path: { id } } });
    expect(res.response.status).toBe(200);
    return res.data!;
  };
  /** Both parties see the same contract, in this status. */
  const expectContract = async (id: string, status: string) => {
    const [a, b] = await Promise.all(both.map((u) => contractAs(u, id)));
    expect(a!.status).toBe(status);
    expect(b).toEqual(a);
    return a!;
  };

  // The client publishes a gig; the worker applies; the client shortlists the application.
  const gig = await client.api.POST('/api/gigs', { body: { title: 'Build a log parser in Rust', tags: ['rust'], rate_cents: 8_000 } });
  expect(gig.response.status).toBe(201);
  expect(gig.data!.status).toBe('open');
  const gigId = gig.data!.id;
  const applied = await worker.api.POST('/api/gigs/{id}/applications', {
    params: { path: { id: gigId } },
    body: { message: 'I have shipped three parsers.', proposed_rate_cents: 9_500 },
  });
  expect(applied.response.status).toBe(201);
  expect(applied.data!.status).toBe('submitted');
  const applicationId = applied.data!.id;
  const shortlisted = await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: applicationId } } });
  expect(shortlisted.response.status).toBe(200);
  expect(shortlisted.data!.status).toBe('shortlisted');
  expect(await eventTypes('application', applicationId)).toEqual(['application.submitted', 'application.shortlisted']);

  // Two rounds: the client proposes, the worker counter-proposes, the client agrees.
  const opened = await client.api.POST('/api/negotiate', {
    body: {
      gig_id: gigId,
      worker_user_id: worker.userId,
      rate_cents: 8_000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 5,
      milestones: [{ title: 'Everything', amount_cents: 10_000, due_date: '2026-12-20' }],
    },
  });
  expect(opened.response.status).toBe(200);
  const negotiationId = opened.data!.id;
  expect(opened.data).toMatchObject({ status: 'open', awaiting: 'worker', rounds: [{ number: 1, proposed_by: 'client' }] });
  const countered = await worker.api.POST('/api/negotiations/{id}/rounds', {
    params: { path: { id: negotiationId } },
    body: {
      rate_cents: 9_000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 3,
      notes: 'A paid kick-off is not needed; split the rest.',
      milestones: [
        { title: 'Kick-off call', amount_cents: 0, due_date: '2026-12-02' },
        { title: 'Parser and tests', amount_cents: 12_000, due_date: '2026-12-20' },
      ],
    },
  });
  expect(countered.response.status).toBe(201);
  expect(countered.data).toMatchObject({
    status: 'open',
    awaiting: 'client',
    rounds: [{ number: 1 }, { number: 2, proposed_by: 'worker' }],
  });
  const agreed = await client.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiationId } } });
  expect(agreed.response.status).toBe(200);
  expect(agreed.data!.negotiation.status).toBe('agreed');
  const contractId = agreed.data!.contract.id;
  expect(agreed.data!.negotiation.contract_id).toBe(contractId);
  expect(await eventTypes('negotiation', negotiationId)).toEqual([
    'negotiation.created',
    'negotiation.round_created',
    'negotiation.round_created',
    'negotiation.agreed',
  ]);

  // The contract holds the agreed (second) round's terms; nothing binds until both owners approve.
  let contract = await expectContract(contractId, 'pending_owner_approval');
  expect(contract).toMatchObject({
    gig_id: gigId,
    client_user_id: client.userId,
    worker_user_id: worker.userId,
    rate_cents: 9_000,
    payout_delay_days: 3,
    currency: 'USD',
    approval_deadline: expect.any(String),
    client_approved_at: null,
    worker_approved_at: null,
  });
  expect(contract.milestones.map((m) => [m.title, m.amount_cents, m.status])).toEqual([
    ['Kick-off call', 0, 'pending'],
    ['Parser and tests', 12_000, 'pending'],
  ]);
  const [freeId, paidId] = contract.milestones.map((m) => m.id) as [string, string];

  const byClient = await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contractId } } });
  expect(byClient.response.status).toBe(200);
  expect(byClient.data).toMatchObject({
    connect_url: null,
    contract: { status: 'pending_owner_approval', client_approved_at: expect.any(String), worker_approved_at: null },
  });
  const byWorker = asApproval(await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contractId } } }));
  expect(byWorker.response.status).toBe(200);
  expect(byWorker.data!.contract.status).toBe('pending_freelancer_kyc');
  const connectUrl = byWorker.data!.connect_url!;
  expect(connectUrl.startsWith(`${fake.url}/setup/e/acct_`)).toBe(true);
  const accountId = accountIdOf(connectUrl);
  expect(fake.accounts.get(accountId)).toMatchObject({ type: 'express', metadata: { user_id: worker.userId }, payouts_enabled: false });
  await expectContract(contractId, 'pending_freelancer_kyc');
  expect(await eventTypes('contract', contractId)).toEqual([
    'contract.created',
    'contract.approved',
    'contract.approved',
    'contract.pending_freelancer_kyc',
  ]);

  // KYC: the worker finishes Stripe's hosted onboarding; Stripe sends account.updated (Connect endpoint).
  const hosted = await fetch(connectUrl, { redirect: 'manual' });
  expect(hosted.headers.get('location')).toBe(`${server.url}/connect/return?contract_id=${contractId}`);
  const kyc = await deliver(
    server,
    fake,
    fake.buildEvent('account.updated', fake.accounts.get(accountId)!, { account: accountId }),
    CONNECT_WEBHOOK_SECRET,
  );
  expect(kyc).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
  contract = await expectContract(contractId, 'active');
  expect(contract.activated_at).toEqual(expect.any(String));
  expect((await eventTypes('contract', contractId)).at(-1)).toBe('contract.active');

  // Fund: the zero milestone is funded at once; the other gets a PaymentIntent and its client_secret.
  const fundFree = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
    params: { path: { id: contractId, milestoneId: freeId } },
  });
  expect(fundFree.response.status).toBe(200);
  expect(fundFree.data).toMatchObject({ client_secret: null, payment_id: null, provider: 'stripe', milestone: { status: 'funded' } });
  const fundPaid = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', {
    params: { path: { id: contractId, milestoneId: paidId } },
  });
  expect(fundPaid.response.status).toBe(200);
  const paymentId = fundPaid.data!.payment_id!;
  expect(fake.paymentIntents.get(paymentId)).toMatchObject({
    amount: 12_000,
    currency: 'usd',
    metadata: { milestone_id: paidId, contract_id: contractId },
  });
  expect(fundPaid.data).toMatchObject({
    client_secret: fake.paymentIntents.get(paymentId)!.client_secret,
    milestone: { status: 'funding' },
  });
  expect(fake.counts().paymentIntents).toBe(1);

  // The client pays with Stripe.js; Stripe sends payment_intent.succeeded.
  const paid = await deliver(server, fake, fake.buildEvent('payment_intent.succeeded', fake.succeedPaymentIntent(paymentId)));
  expect(paid).toEqual({ status: 200, body: { received: true, outcome: 'applied' } });
  contract = await expectContract(contractId, 'active');
  expect(contract.milestones.map((m) => m.status)).toEqual(['funded', 'funded']);

  // Release both: the contract is completed; the payouts wait payout_delay_days.
  const releaseFree = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
    params: { path: { id: contractId, milestoneId: freeId } },
  });
  expect(releaseFree.data!.contract.status).toBe('active');
  const releasePaid = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
    params: { path: { id: contractId, milestoneId: paidId } },
  });
  expect(releasePaid.response.status).toBe(200);
  const released = releasePaid.data!.milestone;
  expect(released.status).toBe('released');
  expect(Date.parse(released.payout_due_at!) - Date.parse(released.released_at!)).toBe(3 * DAY_SECONDS * 1000);
  contract = await expectContract(contractId, 'completed');
  expect(contract.completed_at).toEqual(expect.any(String));
  expect(contract.milestones.map((m) => m.status)).toEqual(['released', 'released']);
  expect(fake.counts().transfers).toBe(0);

  // The payout job pays the worker: one transfer, from the milestone's charge, to their account.
  await vi.waitFor(async () => expect((await contractAs(worker, contractId)).milestones.map((m) => m.status)).toEqual(['paid', 'paid']), {
    timeout: 60_000,
    interval: 250,
  });
  expect(fake.counts().transfers).toBe(1);
  const [transfer] = [...fake.transfers.values()];
  expect(transfer).toMatchObject({
    amount: 12_000,
    currency: 'usd',
    destination: accountId,
    source_transaction: fake.paymentIntents.get(paymentId)!.latest_charge,
    metadata: { milestone_id: paidId },
  });
  contract = await expectContract(contractId, 'completed');
  for (const m of contract.milestones) expect(Date.parse(m.paid_at!)).toBeGreaterThanOrEqual(Date.parse(m.payout_due_at!));

  // Every step wrote its event.
  expect(await eventTypes('gig', gigId)).toEqual(['gig.created']);
  expect(await eventTypes('contract', contractId)).toEqual([
    'contract.created',
    'contract.approved',
    'contract.approved',
    'contract.pending_freelancer_kyc',
    'contract.active',
    'contract.completed',
  ]);
  expect(await eventTypes('milestone', freeId)).toEqual(['milestone.funded', 'milestone.released', 'milestone.paid']);
  expect(await eventTypes('milestone', paidId)).toEqual(['milestone.funding', 'milestone.funded', 'milestone.released', 'milestone.paid']);
  const contractEvents = await eventsForResource(server.db, 'contract', contractId);
  for (const e of contractEvents) expect(e.audienceUserIds).toEqual([client.userId, worker.userId]);
  expect(contractEvents.map((e) => e.actorUserId)).toEqual([
    client.userId,
    client.userId,
    worker.userId,
    worker.userId,
    null,
    client.userId,
  ]);
});
