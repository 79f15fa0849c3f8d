// The owners' dashboard in a real browser: negotiations and which agent did what. An owner signs in
// and makes a key for their agent (hosted agent "agent-7"); that agent and the worker's agent
// ("agent-9") negotiate two rounds over the API. The owner finds the negotiation under
// Negotiations, reads both rounds with the second's changes marked in words ("changed from"), and
// the Activity naming their key and its agent and the other party's agent; agrees in the page and
// follows the link to the contract. The worker's agent then revises it and the deal is agreed
// again: the contract page says what changed since the previous revision, and who sent it back.
// Each page is checked with axe-core and saved as a screenshot in test-results/dashboard/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import {
  browserRuns,
  closeDashboard,
  createKeyInPage,
  devSignInNew,
  local,
  navLink,
  openDashboard,
  suiteTitle,
  type Dashboard,
} from '../helpers/dashboard.ts';
import { type Milestone, negotiation as startNegotiation } from '../helpers/lifecycle.ts';
import type { ApiClient } from '../helpers/server.ts';
import { issueApiKey } from '../../src/services/api-keys.ts';
import { userActor } from '../../src/actor.ts';

let dashboard: Dashboard;
let page: Page;

beforeAll(async () => {
  if (!browserRuns) return;
  dashboard = await openDashboard();
  page = dashboard.page;
});
afterAll(() => closeDashboard(dashboard));

const nav = (name: string) => navLink(page, name);

type Party = { userId: string; apiKey: string; apiKeyId: string; api: ApiClient };

/** A round proposed by a party's agent, at $90/h from Dec 1, 2026 with a 3-day payout delay unless told. */
async function propose(party: Party, negotiationId: string, terms: { hours_per_week: number; milestones: Milestone[]; notes?: string }) {
  const res = await party.api.POST('/api/negotiations/{id}/rounds', {
    params: { path: { id: negotiationId } },
    body: { rate_cents: 9000, start_date: '2026-12-01', payout_delay_days: 3, ...terms },
  });
  expect(res.response.status).toBe(201);
}

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: negotiations and who did what'), () => {
  let client: Party;
  let worker: Party;
  let negotiationId: string;
  let contractId: string;

  it('shows every round of a negotiation, what changed from the round before, and which agent did what', async () => {
    const { server } = dashboard;
    await page.goto(`${server.url}/`);
    await devSignInNew(page, 'Clara Client');
    const key = await createKeyInPage(page, server, 'deal agent', 'agent-7');
    client = { ...key, api: server.client(key.apiKey) };

    // The worker's owner gives their agent a key bound to a hosted agent of their own (in their
    // browser; keys are made with a session only, so here by the service that route calls).
    const workerUser = await server.user('Walter Worker');
    const workerKey = await issueApiKey({ db: server.db }, userActor(workerUser.userId), { name: 'worker bot', hostedAgentId: 'agent-9' });
    worker = { userId: workerUser.userId, apiKey: workerKey.secret, apiKeyId: workerKey.row.id, api: server.client(workerKey.secret) };

    // Round 1, the client's agent: $80/h, 10 h, two milestones. Round 2, the worker's agent:
    // $90/h, the parser dearer, the docs dropped, a release added.
    const { negotiation } = await startNegotiation(client, worker, [
      { title: 'Parser and tests', amount_cents: 120_000, due_date: '2026-12-15' },
      { title: 'Docs', amount_cents: 30_000 },
    ]);
    negotiationId = negotiation.id;
    await propose(worker, negotiationId, {
      hours_per_week: 10,
      milestones: [
        { title: 'Parser and tests', amount_cents: 135_000, due_date: '2026-12-15' },
        { title: 'Release', amount_cents: 20_000, due_date: '2027-01-04' },
      ],
      notes: 'The parser is more work than it looks.',
    });

    await nav('Negotiations').click();
    await page.getByRole('heading', { name: 'Negotiations', level: 1 }).waitFor();
    const list = page.getByTestId('negotiations');
    await list.getByText('Round 2 by the worker: $1,550.00').waitFor();
    await list.getByText('Awaiting your side (the client): agree or propose new terms.').waitFor();
    await checkPage(page, 'negotiations');

    await list.getByRole('link', { name: 'Build a Rust CLI' }).click();
    expect(new URL(page.url()).hash).toBe(`#/negotiations/${negotiationId}`);
    await page.getByText('Walter Worker').waitFor();
    await page.getByTestId('awaiting').getByText('Awaiting your side (the client)').waitFor();

    const first = page.getByTestId('round-1');
    const second = page.getByTestId('round-2');
    await first.getByRole('heading', { name: 'Round 1: proposed by the client (your side)' }).waitFor();
    await expect.poll(() => first.innerText()).toMatch(/Rate\s+\$80.00 per hour/);
    expect(await first.locator('.change').count()).toBe(0);
    await second.getByRole('heading', { name: 'Round 2: proposed by the worker (the other side)' }).waitFor();
    await second.getByText('changed from $80.00 per hour').waitFor();
    await expect.poll(() => second.innerText()).toMatch(/Rate\s+\$90.00 per hour\s*changed from \$80.00 per hour/);
    await expect.poll(() => second.innerText()).toMatch(/Parser and tests\s+\$1,350.00\s*changed from \$1,200.00/);
    await second.getByRole('rowheader', { name: 'Release added' }).waitFor();
    await second.getByText('removed milestone 2 of the previous round: “Docs”, $300.00').waitFor();
    await second.getByText('The parser is more work than it looks.').waitFor();
    await second.getByText('4 changes from the round before, marked below').waitFor();
    // Round 2 is not the round a reader can mistake for another: the unchanged terms carry no mark.
    await expect.poll(() => second.innerText()).toMatch(/Hours per week\s+10\s+Start date/);

    // Who did what, newest first, in the viewer's time zone.
    const activity = page.getByTestId('activity');
    await activity.getByText("Round 2 (the worker’s terms) proposed by the other party's agent agent-9").waitFor();
    await activity.getByText("Round 1 (the client’s terms) proposed by your key 'deal agent' (agent agent-7)").waitFor();
    await activity.getByText("Negotiation started by your key 'deal agent' (agent agent-7)").waitFor();
    const events = await client.api.GET('/api/events', { params: { query: { resource_id: negotiationId } } });
    const newest = events.data!.data[0]!;
    expect(newest.actor).toEqual({ user_id: worker.userId, api_key_id: worker.apiKeyId, hosted_agent_id: 'agent-9' });
    await expect.poll(() => activity.locator('li').first().innerText()).toContain(local(newest.created_at));
    await checkPage(page, 'negotiation');
  }, 120_000);

  it('agrees in the page, in the owner’s own name, and links to the contract', async () => {
    await page.getByRole('button', { name: 'Agree to round 2' }).click();
    await page.getByText('Agreed: nothing binds until both owners approve the contract.').waitFor();
    await page.locator('.lead .status').getByText('Agreed', { exact: true }).waitFor();
    await page.getByTestId('activity').getByText('Latest terms agreed by you, in the browser').waitFor();
    const agreed = await client.api.GET('/api/negotiations/{id}', { params: { path: { id: negotiationId } } });
    expect(agreed.data).toMatchObject({ status: 'agreed', contract_id: expect.any(String) });
    contractId = agreed.data!.contract_id!;
    await page.getByRole('link', { name: 'Open the contract made from this negotiation' }).click();
    expect(new URL(page.url()).hash).toBe(`#/contracts/${contractId}`);
    await page.getByTestId('terms').getByText('$90.00 per hour').waitFor();
    // Revision 0: nothing to compare with yet.
    expect(await page.getByRole('heading', { name: /What changed/ }).count()).toBe(0);
  });

  it('shows on a revised contract what changed since the previous revision, and who sent it back', async () => {
    const revised = await worker.api.POST('/api/contracts/{id}/revise', {
      params: { path: { id: contractId } },
      body: { notes: 'Twenty hours a week, and the docs back in.' },
    });
    expect(revised.response.status).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText('Sent back to negotiation: the terms above are still those of revision 0').waitFor();

    await propose(client, negotiationId, {
      hours_per_week: 20,
      milestones: [
        { title: 'Parser and tests', amount_cents: 135_000, due_date: '2026-12-15' },
        { title: 'Release', amount_cents: 20_000, due_date: '2027-01-04' },
        { title: 'Docs', amount_cents: 30_000 },
      ],
    });
    expect((await worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiationId } } })).response.status).toBe(200);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('heading', { name: 'Terms (revision 1)' }).waitFor();
    const changes = page.getByTestId('changes');
    await changes.getByText('Hours per week: 20, changed from 10.').waitFor();
    await changes.getByText('Milestone 3 added: “Docs”, $300.00.').waitFor();
    expect(await changes.locator('li').count()).toBe(2);
    await page.getByText('Revision 1 against revision 0 (round 2)').waitFor();

    const activity = page.getByTestId('activity');
    await activity.getByText("Contract sent back to negotiation by the other party's agent agent-9").waitFor();
    await activity.getByText('Contract given the newly agreed terms').waitFor();
    await checkPage(page, 'contract-changes');
  });

  it('shares contact details and cancels a negotiation, each asked once more in the page', async () => {
    const { negotiation } = await startNegotiation(client, worker);
    await page.goto(`${dashboard.server.url}/#/negotiations/${negotiation.id}`);
    await page.getByTestId('round-1').waitFor();
    await page.getByRole('button', { name: 'Share my contact details…' }).click();
    await page.getByRole('button', { name: 'Yes, share them' }).click();
    await page.getByText('You shared your contact details.').waitFor();
    await page.getByRole('button', { name: 'Cancel negotiation…' }).click();
    await page.getByText('Cancel this negotiation? It cannot be reopened.').waitFor();
    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    await page.locator('.lead .status').getByText('Cancelled', { exact: true }).waitFor();
    await page.getByTestId('activity').getByText('Negotiation cancelled by you, in the browser').waitFor();
    await page.getByTestId('activity').getByText('Contact details shared by you, in the browser').waitFor();
    const after = await client.api.GET('/api/negotiations/{id}', { params: { path: { id: negotiation.id } } });
    expect(after.data).toMatchObject({ status: 'cancelled', contact: { client_shared: true } });
    await checkPage(page, 'negotiation-cancelled');
  });

  it('filters negotiations by status, with an empty state', async () => {
    await nav('Negotiations').click();
    await page.getByLabel('Status').selectOption('open');
    await page.getByText('No negotiations open.').waitFor();
    await page.getByLabel('Status').selectOption('agreed');
    await expect.poll(() => page.getByTestId('negotiations').getByRole('row').count()).toBe(2); // the header and one
    await page.getByLabel('Status').selectOption('cancelled');
    await expect.poll(() => page.getByTestId('negotiations').getByRole('row').count()).toBe(2);
  });

  it('fits a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${dashboard.server.url}/#/negotiations/${negotiationId}`);
    await page.getByTestId('round-2').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await checkPage(page, 'negotiation-phone');
  });

  it('met no script error and no Content-Security-Policy violation', () => {
    expect(dashboard.problems).toEqual([]);
  });
});
