// The owners' dashboard in a real browser (Chromium through playwright-core), on the sandbox
// provider: an owner signs in with the dev sign-in and creates a key in the page; that key's agent
// and a worker's agent agree a deal over the API; the owner finds the contract waiting in the
// Overview, opens #/contracts/{id}, reads its terms, and approves. A revise in the middle (revised
// and agreed again after the page loaded) makes that first approval stale: it is refused with the
// API's message shown, and the owner then approves the terms now on screen. Each page is checked
// with axe-core and saved as a screenshot in test-results/dashboard/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { TestServer, TestUser } from '../helpers/server.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { checkPage, watchForErrors } from '../helpers/browser.ts';
import {
  browserRuns as runs,
  closeDashboard,
  createKeyInPage,
  devSignInNew,
  local,
  navLink,
  openDashboard,
  suiteTitle,
  viewerContext,
  type Dashboard,
} from '../helpers/dashboard.ts';

let dashboard: Dashboard;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!runs) return;
  dashboard = await openDashboard();
  ({ server, browser, context, page, problems } = dashboard);
});
afterAll(() => closeDashboard(dashboard));

/** A link of the site's navigation. */
const nav = (name: string) => navLink(page, name);

/** Follows a link that opens a tab (a sandbox page), presses `button` there, waits for `heading`, closes the tab. */
async function completeInNewTab(tabs: BrowserContext, link: Locator, button: string, heading: string): Promise<void> {
  const [tab] = await Promise.all([tabs.waitForEvent('page'), link.click()]);
  await tab.getByRole('button', { name: button, exact: true }).click();
  await tab.getByRole('heading', { name: heading }).waitFor();
  await tab.close();
}

describe.skipIf(!runs)(suiteTitle('the owners dashboard'), () => {
  let clientKey: string;
  let ownerId: string;
  let worker: TestUser;
  let contractId: string;

  it('signs an owner in with the dev sign-in, under a CSP that allows no inline script', async () => {
    const response = await page.goto(`${server.url}/`);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self';");
    expect(response!.headers()['content-security-policy']).not.toContain('unsafe-inline');
    await page.getByRole('link', { name: 'Dev sign-in' }).waitFor();
    expect(await page.getByRole('link', { name: 'Sign in with GitHub' }).count()).toBe(0);
    await checkPage(page, 'signed-out');

    await devSignInNew(page, 'Olivia Owner');
    await page.getByText('Nothing awaits you').waitFor();
  });

  it('creates an API key in the page and shows its secret once', async () => {
    await nav('API keys').click();
    await page.getByText('No keys yet').waitFor();
    ({ apiKey: clientKey, userId: ownerId } = await createKeyInPage(page, server, 'client agent', 'agent-7'));
    await checkPage(page, 'keys');
  });

  it('shows the agreed contract waiting in the Overview, its terms at #/contracts/{id}, and approves only the terms seen', async () => {
    // The owner's agent (the key made above) and a worker's agent agree a deal over the API.
    const client = { userId: ownerId, apiKey: clientKey, apiKeyId: '', api: server.client(clientKey) };
    worker = await server.user('Walter Worker');
    const { negotiation, contract } = await pendingContract(client, worker, [
      { title: 'Parser and tests', amount_cents: 120_000, due_date: '2026-12-15' },
      { title: 'Docs & <release>', amount_cents: 30_000 },
    ]);

    contractId = contract.id;
    await nav('Overview').click();
    await page.reload(); // the Overview reads the contract lists afresh
    const task = page.locator('.task-approve');
    await task.getByText('Review and approve the terms (revision 0)').waitFor();
    await task.getByText(/\d+ d \d+ h left/).waitFor();
    await task.getByText(local(contract.approval_deadline!)).waitFor();
    await page.getByTestId('unread').waitFor();
    await checkPage(page, 'overview');

    // The link the MCP server gives owners: PUBLIC_URL/#/contracts/{id}.
    await task.getByRole('link', { name: 'Build a Rust CLI' }).click();
    expect(new URL(page.url()).hash).toBe(`#/contracts/${contract.id}`);
    const terms = page.getByTestId('terms');
    await terms.getByText('$80.00 per hour').waitFor();
    await expect.poll(() => terms.innerText()).toMatch(/Hours per week\s+10/);
    await expect.poll(() => terms.innerText()).toMatch(/Start date\s+Dec 1, 2026/);
    await expect.poll(() => terms.innerText()).toMatch(/Payout delay\s+3 days after each release/);
    await expect.poll(() => terms.innerText()).toMatch(/Total\s+\$1,500.00 in 2 milestones/);
    const milestones = page.getByTestId('milestones');
    await expect.poll(() => milestones.innerText()).toMatch(/Parser and tests\s+\$1,200.00\s+Dec 15, 2026/);
    await milestones.getByText('Docs & <release>').waitFor(); // text, never markup
    await page.getByText('Walter Worker').waitFor();
    await checkPage(page, 'contract');

    // Meanwhile the worker's agent asks for more and the deal is agreed again: revision 1.
    const revised = await worker.api.POST('/api/contracts/{id}/revise', {
      params: { path: { id: contract.id } },
      body: { notes: 'More hours, please.' },
    });
    expect(revised.response.status).toBe(200);
    const round = await client.api.POST('/api/negotiations/{id}/rounds', {
      params: { path: { id: negotiation.id } },
      body: {
        rate_cents: 9000,
        hours_per_week: 20,
        start_date: '2027-01-04',
        payout_delay_days: 5,
        milestones: [{ title: 'All of it', amount_cents: 150_000 }],
      },
    });
    expect(round.response.status).toBe(201);
    expect((await worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiation.id } } })).response.status).toBe(200);

    // The page still shows revision 0: approving it is refused, with the API's reason.
    await page.getByRole('button', { name: 'Approve these terms (revision 0)' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('the contract was revised since revision_count 0: it is at 1').waitFor();
    expect(await refusal.innerText()).toContain('409 INVALID_STATE');
    const stale = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(stale.data).toMatchObject({ status: 'pending_owner_approval', client_approved_at: null, revision_count: 1 });
    // ...and the page now shows the terms as they are, to read again.
    await terms.getByText('$90.00 per hour').waitFor();
    await page.getByText('More hours, please.').waitFor();
    await checkPage(page, 'contract-stale-approval');

    await page.getByRole('button', { name: 'Approve these terms (revision 1)' }).click();
    await page.getByText("You approved this contract; it waits for the other owner's approval.").waitFor();
    const approved = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(approved.data).toMatchObject({ client_approved_at: expect.any(String), revision_count: 1 });

    // The Overview has nothing left for this owner; the contract is listed under Contracts.
    await nav('Overview').click();
    await page.getByText('Nothing awaits you').waitFor();
    await nav('Contracts').click();
    await page.getByRole('cell', { name: 'Awaiting owner approval' }).waitFor();
    await checkPage(page, 'contracts');
  });

  it('fits a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Build a Rust CLI' }).click();
    await page.getByTestId('terms').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await checkPage(page, 'contract-phone');
  });

  it('lets the worker approve and complete identity checks, and the client fund, pay and release', async () => {
    await page.setViewportSize({ width: 1200, height: 900 });
    // The worker's owner, in a browser of their own, follows the approval link the MCP server gives
    // (PUBLIC_URL/#/contracts/{id}) signed out, signs in as the existing user, and lands on it.
    const workerContext = await viewerContext(browser);
    const workerPage = await workerContext.newPage();
    workerPage.setDefaultTimeout(10_000);
    watchForErrors(workerPage, problems);
    await workerPage.goto(`${server.url}/#/contracts/${contractId}`);
    await workerPage.getByRole('link', { name: 'Dev sign-in' }).click();
    await workerPage.getByRole('button', { name: 'Walter Worker' }).click();
    await workerPage.getByRole('button', { name: 'Approve these terms (revision 1)' }).click();
    expect(new URL(workerPage.url()).hash).toBe(`#/contracts/${contractId}`);

    // Both approved: the worker's identity checks, on the sandbox's page in a new tab.
    const kyc = workerPage.getByRole('link', { name: 'Complete identity checks' });
    await kyc.waitFor();
    await checkPage(workerPage, 'contract-worker-kyc');
    await completeInNewTab(workerContext, kyc, 'Complete onboarding', 'Onboarding submitted');
    await workerPage.getByRole('button', { name: 'Refresh' }).click();
    await workerPage.locator('.lead .status').getByText('Active', { exact: true }).waitFor();
    await workerContext.close();

    // The client's owner: the Overview asks to fund the milestone; funding links to the sandbox's pay page.
    await nav('Overview').click();
    await page.reload();
    const fund = page.locator('.task-fund');
    await fund.getByText('Fund milestone 1, “All of it” ($1,500.00)').waitFor();
    await fund.getByRole('link', { name: 'Build a Rust CLI' }).click();
    expect(new URL(page.url()).hash).toBe(`#/contracts/${contractId}`);
    await page.getByRole('button', { name: 'Fund “All of it”' }).click();
    const pay = page.getByRole('link', { name: 'Pay $1,500.00 on the sandbox page' });
    await pay.waitFor();
    await checkPage(page, 'contract-client-pay');
    await completeInNewTab(context, pay, 'Pay', 'Payment confirmed');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const milestones = page.getByTestId('milestones');
    await milestones.getByText('Funded', { exact: true }).waitFor();

    // Release, confirmed in the page: the contract is completed and the payout scheduled.
    await page.getByRole('button', { name: 'Release “All of it”' }).click();
    await page.getByRole('button', { name: 'Yes, release' }).click();
    await page.locator('.lead .status').getByText('Completed', { exact: true }).waitFor();
    await milestones.getByText('Released', { exact: true }).waitFor();
    await milestones.getByText(/payout due/).waitFor();
    const done = await server.client(clientKey).GET('/api/contracts/{id}', { params: { path: { id: contractId } } });
    expect(done.data).toMatchObject({ status: 'completed' });
    expect(done.data!.milestones[0]).toMatchObject({ status: 'released', payout_due_at: expect.any(String) });
    await checkPage(page, 'contract-completed');
  });

  it('met no script error and no Content-Security-Policy violation', () => {
    expect(problems).toEqual([]);
  });
});
