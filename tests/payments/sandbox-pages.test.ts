// The sandbox provider's pages (the default provider, docs/architecture.md §7): the connect_url page completes
// onboarding, the pay page confirms or declines a payment, and the whole lifecycle runs locally.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { activeSandboxContract, approvedContract, submitSandboxOnboarding, type Milestone } from '../helpers/lifecycle.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { milestones as milestonesTable } from '../../db/schema.ts';

const server = testFileServer({ PAYOUT_DAY_SECONDS: '1' });
let client: User;

beforeAll(async () => {
  client = await server.user('Client');
});

const eventTypes = async (type: 'milestone' | 'contract', id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);
const milestoneRow = async (id: string) => (await server.db.select().from(milestonesTable).where(eq(milestonesTable.id, id)))[0]!;
const contractOf = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;
const fund = (contractId: string, milestoneId: string) =>
  client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path: { id: contractId, milestoneId } } });

/** POSTs the pay page's form, as JSON (an agent) or form-encoded (a browser). */
function submitPayment(pageUrl: string, form: Record<string, string>, json = true) {
  return fetch(
    pageUrl,
    json
      ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(form) }
      : { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) },
  );
}

/** A milestone in `funding` on an active contract, with its sandbox payment. */
async function fundingMilestone(milestones: Milestone[] = [{ title: 'Parser', amount_cents: 5_000 }]) {
  const { contract } = await activeSandboxContract(client, await server.user('Worker'), milestones);
  const res = await fund(contract.id, contract.milestones[0]!.id);
  expect(res.response.status).toBe(200);
  return { contract, ...res.data! };
}

describe('the connect_url page (onboarding)', () => {
  it('shows the onboarding form only for a valid link', async () => {
    const { connectUrl } = await approvedContract(client, await server.user('Worker'));
    const url = new URL(connectUrl);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toMatch(/^\/sandbox\/connect\/acct_sandbox_[0-9a-f]{24}$/);
    const page = await fetch(connectUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('sandbox');
    expect(html).toContain('<form method="post">');

    const forged = new URL(connectUrl);
    forged.searchParams.set('token', '0'.repeat(32));
    expect((await fetch(forged)).status).toBe(403);
    const redirected = new URL(connectUrl);
    redirected.searchParams.set('return_url', 'https://evil.example/');
    expect((await fetch(redirected)).status).toBe(403);
  });

  it('refuses a bad token or a changed return URL with 403 and changes nothing', async () => {
    const { contract, connectUrl } = await approvedContract(client, await server.user('Worker'));
    for (const init of [{ token: 'f'.repeat(32) }, { token: '' }, { returnUrl: 'https://evil.example/' }]) {
      const res = await submitSandboxOnboarding(connectUrl, { ...init, json: true });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('FORBIDDEN');
    }
    // A browser's form post gets a page, not the JSON envelope.
    const page = await submitSandboxOnboarding(connectUrl, { token: 'f'.repeat(32) });
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('Invalid onboarding link');
    expect((await contractOf(contract.id)).status).toBe('pending_freelancer_kyc');
    const forged = new URL(connectUrl);
    forged.searchParams.set('token', 'f'.repeat(32));
    expect((await fetch(forged, { method: 'POST', headers: { accept: 'application/json' } })).status).toBe(403);
    expect(await eventTypes('contract', contract.id)).not.toContain('contract.active');
  });

  it('completes onboarding from the link alone, as curl -X POST does', async () => {
    const { contract, connectUrl } = await approvedContract(client, await server.user('Worker'));
    const res = await fetch(connectUrl, { method: 'POST', headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect((await res.json()).outcome).toBe('applied');
    expect((await contractOf(contract.id)).status).toBe('active');
  });

  it('completes onboarding: the contract becomes active, and a second submit is a duplicate', async () => {
    const { contract, connectUrl } = await approvedContract(client, await server.user('Worker'));
    const res = await submitSandboxOnboarding(connectUrl);
    expect(res.status).toBe(303);
    const returnUrl = new URL(connectUrl).searchParams.get('return_url')!;
    expect(res.headers.get('location')).toBe(returnUrl);
    expect(returnUrl).toBe(`${server.url}/connect/return?contract_id=${contract.id}`);
    const after = await contractOf(contract.id);
    expect(after).toMatchObject({ status: 'active', activated_at: expect.any(String) });
    expect(await eventTypes('contract', contract.id)).toEqual([
      'contract.created',
      'contract.approved',
      'contract.approved',
      'contract.pending_freelancer_kyc',
      'contract.active',
    ]);

    const again = await submitSandboxOnboarding(connectUrl, { json: true });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({
      outcome: 'duplicate',
      account_id: new URL(connectUrl).pathname.split('/').at(-1),
      verified: true,
    });
    expect((await eventTypes('contract', contract.id)).filter((t) => t === 'contract.active')).toHaveLength(1);

    // The link itself, posted as is (as `curl -X POST "$connect_url"` does), carries its token too.
    const bare = await fetch(connectUrl, { method: 'POST', headers: { accept: 'application/json' } });
    expect(bare.status).toBe(200);
    expect((await bare.json()).outcome).toBe('duplicate');

    const returned = await fetch(returnUrl);
    expect(returned.status).toBe(200);
    expect(await returned.text()).toContain('Onboarding submitted');
    const refresh = await fetch(`${server.url}/connect/refresh?contract_id=${contract.id}`);
    expect(refresh.status).toBe(200);
    expect(await refresh.text()).toContain(`/api/contracts/${contract.id}/connect-link`);
  });
});

describe('the pay page', () => {
  it('funds through the sandbox: the fund response points at the pay page', async () => {
    const { payment_id, client_secret, payment_page_url, provider, milestone } = await fundingMilestone();
    expect(provider).toBe('sandbox');
    expect(payment_id).toBe(`pi_sandbox_${milestone.id.replace(/-/g, '')}`);
    expect(client_secret!.startsWith(`${payment_id}_secret_`)).toBe(true);
    expect(payment_page_url).toBe(`${server.url}/sandbox/pay/${payment_id}`);
    const page = await fetch(`${payment_page_url}?client_secret=${client_secret}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Pay 50.00 USD (sandbox)');
    expect(html).toContain(client_secret);
  });

  it('shows nothing of a payment without its client secret: the same form for every id, 403 for a wrong secret', async () => {
    const { payment_page_url, client_secret, milestone } = await fundingMilestone();
    const other = await fundingMilestone();
    const unknown = `${server.url}/sandbox/pay/pi_sandbox_${'0'.repeat(32)}`;
    const pages = [];
    for (const [url, status] of [
      [payment_page_url!, 200],
      [unknown, 200],
      [`${payment_page_url}?client_secret=nope`, 403],
      [`${payment_page_url}?client_secret=${other.client_secret}`, 403],
      [`${unknown}?client_secret=${client_secret}`, 403],
    ] as const) {
      const res = await fetch(url);
      expect(res.status, url).toBe(status);
      const html = await res.text();
      expect(html).not.toContain('50.00');
      expect(html).not.toContain(milestone.title);
      pages.push(html.replace(/nonce="[^"]+"/g, ''));
    }
    expect(pages[0]).toBe(pages[1]); // a known and an unknown payment look the same
  });

  it('refuses a wrong client_secret with 403 and changes nothing', async () => {
    const { milestone, payment_page_url, client_secret } = await fundingMilestone();
    const other = await fundingMilestone();
    for (const secret of ['nope', other.client_secret!, '']) {
      const res = await submitPayment(payment_page_url!, { client_secret: secret });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('FORBIDDEN');
    }
    const page = await submitPayment(payment_page_url!, { client_secret: 'nope' }, false);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('Wrong client secret');
    expect((await milestoneRow(milestone.id)).status).toBe('funding');
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding']);
    expect(client_secret).not.toBe(other.client_secret);
    expect((await submitPayment(`${server.url}/sandbox/pay/pi_sandbox_${'0'.repeat(32)}`, { client_secret: client_secret! })).status).toBe(
      403,
    );
  });

  it('records a decline as milestone.payment_failed, then funds on payment; a repeat is a duplicate', async () => {
    const { milestone, payment_page_url, client_secret } = await fundingMilestone();
    const declined = await submitPayment(payment_page_url!, { client_secret: client_secret!, outcome: 'failed' });
    expect(declined.status).toBe(200);
    expect(await declined.json()).toEqual({ outcome: 'applied', payment: 'failed' });
    expect((await milestoneRow(milestone.id)).status).toBe('funding');
    const events = await eventsForResource(server.db, 'milestone', milestone.id);
    expect(events.map((e) => e.type)).toEqual(['milestone.funding', 'milestone.payment_failed']);
    expect(events[1]!.data).toMatchObject({ status: 'funding', failure_reason: 'declined in the sandbox' });

    const paid = await submitPayment(payment_page_url!, { client_secret: client_secret!, outcome: 'succeeded' }, false);
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain('Payment confirmed');
    expect(await milestoneRow(milestone.id)).toMatchObject({ status: 'funded', fundedAt: expect.any(Date) });
    expect(await eventTypes('milestone', milestone.id)).toEqual(['milestone.funding', 'milestone.payment_failed', 'milestone.funded']);

    const again = await submitPayment(payment_page_url!, { client_secret: client_secret! });
    expect(await again.json()).toEqual({ outcome: 'duplicate', payment: 'succeeded' });
    expect(await eventTypes('milestone', milestone.id)).toHaveLength(3);
  });
});

describe('the whole lifecycle on the sandbox', () => {
  it('runs from approval to paid with no Stripe account', async () => {
    const worker = await server.user('Worker');
    const { contract } = await activeSandboxContract(client, worker, [
      { title: 'Kick-off', amount_cents: 0 },
      { title: 'Work', amount_cents: 5_000 },
    ]);
    const [free, work] = contract.milestones;
    expect((await fund(contract.id, free!.id)).data).toMatchObject({
      client_secret: null,
      payment_id: null,
      payment_page_url: null,
      milestone: { status: 'funded' },
    });
    const funding = (await fund(contract.id, work!.id)).data!;
    expect((await submitPayment(funding.payment_page_url!, { client_secret: funding.client_secret! })).status).toBe(200);
    for (const m of [free!, work!]) {
      const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
        params: { path: { id: contract.id, milestoneId: m.id } },
      });
      expect(res.response.status).toBe(200);
    }
    expect((await contractOf(contract.id)).status).toBe('completed');
    await vi.waitFor(async () => expect((await contractOf(contract.id)).milestones.map((m) => m.status)).toEqual(['paid', 'paid']), {
      timeout: 60_000,
      interval: 250,
    });
    expect(await milestoneRow(work!.id)).toMatchObject({ transferId: `tr_sandbox_${work!.id.replace(/-/g, '')}` });
    expect((await milestoneRow(free!.id)).transferId).toBeNull();
    expect(await eventTypes('milestone', work!.id)).toEqual([
      'milestone.funding',
      'milestone.funded',
      'milestone.released',
      'milestone.paid',
    ]);
    expect((await eventTypes('contract', contract.id)).at(-1)).toBe('contract.completed');
  });
});
