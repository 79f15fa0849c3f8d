// The owners' dashboard in a real browser: disputes, payouts and reviews. An owner (the client)
// opens a dispute from the contract's page over one of two funded milestones; adds a statement and
// a PDF (a text file posing as one is refused with the API's 415 message); the worker responds;
// the owner asks for the advisory recommendation (a local fake of the chat-completions API) and
// accepts it, the worker accepts the same, and the page shows the resolution and where the money
// went. A dispute the worker opens on another contract waits in the Overview for the owner's
// response, given in the page. The Disputes page lists both, filtered by status. A completed
// contract waits in the Overview for the owner's review, written double-blind on its page. Each
// page is checked with axe-core and saved in test-results/dashboard/.
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import {
  browserRuns,
  dashboardForFile,
  navLink,
  signInNewOwner,
  suiteTitle,
  type Dashboard,
  type SignedInOwner,
} from '../helpers/dashboard.ts';
import { pdfFile, textFile } from '../helpers/files.ts';
import { completedSandboxContract, fundedSandboxContract } from '../helpers/lifecycle.ts';
import type { TestUser as User } from '../helpers/server.ts';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';

let world: Dashboard;
let page: Page;
let chat: FakeChat;

dashboardForFile(
  (opened) => {
    world = opened;
    page = opened.page;
  },
  async () => (chat = await startFakeChat()).env,
);
afterAll(() => chat?.close());

const nav = (name: string) => navLink(page, name);
const hashId = (prefix: string) => new URL(page.url()).hash.replace(`#/${prefix}/`, '');

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: disputes, payouts and reviews'), () => {
  let owner: SignedInOwner;
  let client: User;
  let worker: User;
  let contractId: string;
  let disputeId: string;

  it('opens a dispute from the contract page over the milestones chosen; the contract is held', async () => {
    owner = await signInNewOwner(world, 'Dora Client');
    client = { userId: owner.userId, apiKey: '', apiKeyId: '', api: owner.api } as User;
    worker = await world.server.user('Walt Worker');
    const { contract } = await fundedSandboxContract(client, worker, [
      { title: 'Parser', amount_cents: 5_000 },
      { title: 'Docs', amount_cents: 1_000 },
    ]);
    contractId = contract.id;

    await page.goto(`${world.server.url}/#/contracts/${contractId}`);
    const disputes = page.getByRole('region', { name: 'Disputes' });
    await disputes.getByRole('button', { name: 'Open a dispute…' }).click();
    await disputes.getByLabel('Reason').selectOption({ label: 'Work not as agreed' });
    await disputes.getByLabel(/What is wrong/).fill('The parser fails on <half> of the agreed logs.');
    await disputes.getByLabel('1. Parser ($50.00)').check();
    await checkPage(page, 'contract-open-dispute');
    await disputes.getByRole('button', { name: 'Open the dispute' }).click();

    await page.getByRole('heading', { name: 'Dispute over Build a Rust CLI', level: 1 }).waitFor();
    disputeId = hashId('disputes');
    const opened = (await owner.api.GET('/api/disputes/{id}', { params: { path: { id: disputeId } } })).data!;
    expect(opened).toMatchObject({
      status: 'open',
      reason: 'work_not_as_agreed',
      description: 'The parser fails on <half> of the agreed logs.',
      milestone_ids: [contract.milestones[0]!.id],
      opener_user_id: owner.userId,
    });
    expect((await owner.api.GET('/api/contracts/{id}', { params: { path: { id: contractId } } })).data!.status).toBe('disputed');
    // Rendered as text, never as markup; the milestone in dispute named with its amount.
    await page.getByText('The parser fails on <half> of the agreed logs.').waitFor();
    await page.getByTestId('disputed-milestones').getByText('1. Parser: $50.00 (funded)').waitFor();
    await page.getByText('The other party has not responded yet.').waitFor();
  });

  it('takes a statement and a PDF as evidence, and shows the API’s refusal of a file that is not one', async () => {
    const evidence = page.getByRole('region', { name: 'Evidence' });
    await evidence.getByLabel('Add a statement').fill('See the 19 failing files in the attached run.');
    await evidence.getByRole('button', { name: 'Add statement' }).click();
    await evidence.getByTestId('evidence').getByText('See the 19 failing files in the attached run.').waitFor();

    const input = evidence.getByLabel(/Add a file/);
    await input.setInputFiles({ name: 'run.pdf', mimeType: 'application/pdf', buffer: pdfFile('Test run') });
    await evidence.getByRole('button', { name: 'Upload file' }).click();
    await evidence.getByRole('link', { name: 'Download the PDF' }).waitFor();

    await input.setInputFiles({ name: 'fake.pdf', mimeType: 'application/pdf', buffer: textFile() });
    await evidence.getByRole('button', { name: 'Upload file' }).click();
    await evidence.getByRole('alert').getByText('415 UNSUPPORTED_MEDIA_TYPE').waitFor();
    const stored = (await owner.api.GET('/api/disputes/{id}', { params: { path: { id: disputeId }, query: { evidence: 1 } } })).data!;
    expect(stored.evidence!.map((e) => [e.kind, e.author_user_id, e.file?.content_type ?? null])).toEqual([
      ['text', owner.userId, null],
      ['file', owner.userId, 'application/pdf'],
    ]);
    // The download link is the API's, served on the session cookie.
    const href = await evidence.getByRole('link', { name: 'Download the PDF' }).getAttribute('href');
    expect(href).toBe(stored.evidence![1]!.file!.url);
    await checkPage(page, 'dispute');
  });

  it('after the response, shows the advisory recommendation; both accept it and the resolution says where the money went', async () => {
    const responded = await worker.api.POST('/api/disputes/{id}/response', {
      params: { path: { id: disputeId } },
      body: { text: 'The logs changed after we agreed.' },
    });
    expect(responded.response.status).toBe(200);
    await page.reload();
    await page.getByTestId('dispute-response').getByText('The logs changed after we agreed.').waitFor();
    await page.getByText(/Awaits you: Accept an outcome/).waitFor();

    const outcome = page.getByRole('region', { name: 'Outcome' });
    await outcome.getByRole('button', { name: 'Ask for a recommendation' }).click();
    const advice = outcome.getByTestId('recommendation');
    await advice.getByText('Split: 60 % to the worker, the rest refunded to the client').waitFor();
    await advice.getByText(/binds nobody/).waitFor();
    await advice.getByText('with 70 % confidence', { exact: false }).waitFor();
    expect(chat.requests).toHaveLength(1);

    // The form starts from the recommendation: a split with 60 % to the worker.
    expect(await outcome.getByLabel('Split the money').isChecked()).toBe(true);
    expect(await outcome.getByLabel(/The worker's share/).inputValue()).toBe('60');
    await outcome.getByRole('button', { name: 'Accept this outcome' }).click();
    await outcome
      .getByTestId('acceptances')
      .getByText(/Split: 60 % to the worker/)
      .waitFor();
    expect((await owner.api.GET('/api/disputes/{id}', { params: { path: { id: disputeId } } })).data!.acceptances.client).toMatchObject({
      outcome: 'split',
      worker_share_percent: 60,
    });

    const accepted = await worker.api.POST('/api/disputes/{id}/resolution', {
      params: { path: { id: disputeId } },
      body: { outcome: 'split', worker_share_percent: 60 },
    });
    expect(accepted.response.status).toBe(200);
    await expect
      .poll(async () => (await owner.api.GET('/api/disputes/{id}', { params: { path: { id: disputeId } } })).data!.resolution?.settled_at)
      .toEqual(expect.any(String));
    await page.reload();
    const resolution = page.getByTestId('resolution');
    await resolution.getByText(/The money moved/).waitFor();
    await resolution.getByText('1. Parser: $30.00 to the worker, $20.00 refunded to the client').waitFor();
    await checkPage(page, 'dispute-resolved');

    // The contract is active again; its payouts list the worker's part of the split.
    await page.getByRole('link', { name: 'The contract' }).click();
    const payouts = page.getByTestId('payouts');
    await payouts.getByRole('rowheader', { name: '1. Parser' }).waitFor();
    await payouts.getByText('$30.00').waitFor();
    await page
      .getByTestId('contract-disputes')
      .getByText(/resolved/)
      .waitFor();
  });

  it('shows a dispute the other party opened in the Overview, and takes the response in the page', async () => {
    const { contract } = await fundedSandboxContract(client, worker, [{ title: 'Deploy', amount_cents: 2_000 }]);
    const opened = await worker.api.POST('/api/contracts/{id}/disputes', {
      params: { path: { id: contract.id } },
      body: { reason: 'payment_withheld', description: 'Deployed a week ago; not released.', milestone_ids: [contract.milestones[0]!.id] },
    });
    expect(opened.response.status).toBe(201);

    await nav('Overview').click();
    await page.reload();
    const task = page.locator('.task-dispute');
    await task.getByText('Respond to the dispute the other party opened').waitFor();
    await task.getByRole('link', { name: 'Build a Rust CLI' }).click();
    expect(hashId('disputes')).toBe(opened.data!.id);
    await page.getByText('The worker opened it', { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Withdraw the dispute…' }).count()).toBe(0); // not the opener's

    const response = page.getByRole('region', { name: 'Response' });
    await response.getByLabel(/Your response/).fill('Release waits for the smoke test we agreed.');
    await response.getByRole('button', { name: 'Send response' }).click();
    await response.getByTestId('dispute-response').getByText('Release waits for the smoke test we agreed.').waitFor();
    expect((await owner.api.GET('/api/disputes/{id}', { params: { path: { id: opened.data!.id } } })).data).toMatchObject({
      status: 'responded',
      response: 'Release waits for the smoke test we agreed.',
    });
  });

  it('lists every dispute under Disputes, filtered by status', async () => {
    await nav('Disputes').click();
    await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor();
    const table = page.getByTestId('disputes');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    await table.getByText('Payment withheld').waitFor();
    await table.getByText('Work not as agreed').waitFor();
    await checkPage(page, 'disputes');
    await page.getByLabel('Status').selectOption('resolved');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByText('Work not as agreed').waitFor();
  });

  it('shows a completed contract’s review in the Overview, written double-blind on the contract page', async () => {
    const other = await world.server.user('Rhea Reviewer');
    const { contract } = await completedSandboxContract(client, other);
    await nav('Overview').click();
    await page.reload();
    const task = page.locator('.task-review');
    await task.getByText('Review the other party (double-blind)').waitFor();
    await task.getByText(/the review period ends/).waitFor();
    await task.getByRole('link', { name: 'Build a Rust CLI' }).click();

    const reviews = page.getByRole('region', { name: 'Reviews' });
    await reviews.getByLabel('4').check();
    await reviews.getByLabel(/What you say of them/).fill('Clear work, quick answers.');
    await reviews.getByRole('button', { name: 'Publish my review' }).click();
    await reviews.getByTestId('review-client').getByText('4 out of 5').waitFor();
    await reviews.getByText('Not yet visible to the other party.', { exact: false }).waitFor();
    await reviews.getByTestId('their-review').getByText('Not written yet.').waitFor();
    await checkPage(page, 'contract-reviews');

    const theirs = await other.api.POST('/api/contracts/{id}/reviews', {
      params: { path: { id: contract.id } },
      body: { rating: 5, text: 'Paid on time.' },
    });
    expect(theirs.response.status).toBe(201);
    await page.reload();
    await reviews.getByTestId('review-worker').getByText('Paid on time.').waitFor();
    await reviews
      .getByTestId('review-client')
      .getByText(/published/)
      .waitFor();
    const view = (await owner.api.GET('/api/contracts/{id}/reviews', { params: { path: { id: contract.id } } })).data!;
    expect(view).toMatchObject({
      can_review: false,
      yours: { rating: 4, text: 'Clear work, quick answers.' },
      theirs: { status: 'published' },
    });
    expect(world.problems).toEqual([]);
  });
});
