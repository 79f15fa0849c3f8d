// `npm run docs:screenshot`: retakes the dashboard's screenshots in docs/screenshots/ (the README and
// docs/guide/dashboard.md show them). Starts the server as `npm start` does, on the sandbox provider
// and a fresh embedded database in a temporary folder; signs an owner in with the dev sign-in in
// Debian's Chromium (driven by playwright-core; CHROMIUM_PATH for another binary); has the owner's
// agent and a worker's agent agree a contract over the API; then saves the Overview (overview.png)
// and the contract's page after an approval of terms that were revised since the page loaded
// (contract-stale-approval.png). Removes the server and its folder when done.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import createClient from 'openapi-fetch';
import { type BrowserContext, chromium } from 'playwright-core';
import type { paths } from '../src/generated/api.d.ts';
import { freePort, startServer, stopServer } from './bench-kit.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Api = ReturnType<typeof createClient<paths>>;

/** What the agents agree, then what they agree again after the worker's revise (the page shows both). */
const TERMS = {
  rate_cents: 8000,
  hours_per_week: 10,
  start_date: '2026-12-01',
  payout_delay_days: 3,
  milestones: [
    { title: 'Parser and tests', amount_cents: 120_000, due_date: '2026-12-15' },
    { title: 'Docs and release', amount_cents: 30_000 },
  ],
};
const REVISED_TERMS = {
  rate_cents: 9000,
  hours_per_week: 20,
  start_date: '2027-01-04',
  payout_delay_days: 5,
  milestones: [{ title: 'All of it', amount_cents: 150_000 }],
};

/** The data of a response, or an error naming the call and the API's answer. */
async function ok<T>(what: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data === undefined) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** An API key for the user signed in in this browser context (as the API keys page makes one), and a client on it. */
async function agentOf(context: BrowserContext, base: string, agent: string): Promise<{ api: Api; userId: string }> {
  const created = await context.request.post(`${base}/api/keys`, {
    data: { name: `${agent}'s key`, hosted_agent_id: agent },
    headers: { origin: base },
  });
  if (!created.ok()) throw new Error(`POST /api/keys: HTTP ${created.status()} ${await created.text()}`);
  const { key } = (await created.json()) as { key: string };
  const api = createClient<paths>({ baseUrl: base, headers: { authorization: `Bearer ${key}` } });
  const me = await ok('GET /api/keys/verify', api.GET('/api/keys/verify'));
  return { api, userId: me.user_id };
}

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gigmarket-screenshot-'));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const server = await startServer(
    {
      DATA_DIR: path.join(work, 'data'),
      DATABASE_URL: '',
      STRIPE_SECRET_KEY: '',
      STRIPE_WEBHOOK_SECRET: '',
      PUBLIC_URL: base,
      NODE_ENV: 'development',
    },
    port,
    { stdout: 'ignore' },
  );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const view = { locale: 'en-US', timezoneId: 'America/New_York', viewport: { width: 1200, height: 900 } };
    const context = await browser.newContext(view);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);

    // The owner signs in as a person would, in the page.
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Dev sign-in' }).click();
    await page.getByLabel('Display name').fill('Olivia Owner');
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.getByRole('heading', { name: 'What awaits you' }).waitFor();

    // Two agents agree a deal over the API: the owner's (a key made on the owner's session) and a worker's.
    const { api: client } = await agentOf(context, base, 'agent-7');
    const workerContext = await browser.newContext(view);
    await workerContext.request.post(`${base}/auth/dev`, { form: { display_name: 'Walter Worker' }, headers: { origin: base } });
    const worker = await agentOf(workerContext, base, 'agent-9');
    const gig = await ok('POST /api/gigs', client.POST('/api/gigs', { body: { title: 'Build a Rust CLI', tags: ['rust', 'cli'] } }));
    const application = await ok(
      'apply',
      worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: gig.id } }, body: { message: 'I have shipped three CLIs.' } }),
    );
    await ok('shortlist', client.POST('/api/applications/{id}/shortlist', { params: { path: { id: application.id } } }));
    const deal = { gig_id: gig.id, worker_user_id: worker.userId };
    const negotiation = await ok('negotiate', client.POST('/api/negotiate', { body: { ...deal, ...TERMS } }));
    const agreed = await ok('agree', worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiation.id } } }));

    await page.reload();
    await page.locator('.task-approve').getByText('Review and approve the terms (revision 0)').waitFor();
    await page.screenshot({ path: path.join(out, 'overview.png') });

    // The owner opens the contract; meanwhile the worker's agent asks for more and the deal is agreed
    // again (revision 1), so approving the terms on screen (revision 0) is refused.
    await page.locator('.task-approve').getByRole('link', { name: 'Build a Rust CLI' }).click();
    await page.getByTestId('terms').getByText('$80.00 per hour').waitFor();
    const contractId = agreed.contract.id;
    await ok(
      'revise',
      worker.api.POST('/api/contracts/{id}/revise', { params: { path: { id: contractId } }, body: { notes: 'More hours, please.' } }),
    );
    const round = { params: { path: { id: negotiation.id } }, body: REVISED_TERMS };
    await ok('round', client.POST('/api/negotiations/{id}/rounds', round));
    await ok('agree again', worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiation.id } } }));
    await page.getByRole('button', { name: 'Approve these terms (revision 0)' }).click();
    await page.getByRole('alert').getByText('the contract was revised since revision_count 0').waitFor();
    await page.getByTestId('terms').getByText('$90.00 per hour').waitFor();
    await page.getByText('Loading the previous terms').waitFor({ state: 'detached' });
    await page.screenshot({ path: path.join(out, 'contract-stale-approval.png'), fullPage: true });
    console.log(`saved ${path.relative(root, path.join(out, 'overview.png'))} and contract-stale-approval.png`);
  } finally {
    await browser.close();
    await stopServer(server);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
