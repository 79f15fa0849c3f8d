// The setup the dashboard's browser tests share: a test server and Chromium, a signed-out page in
// the viewer's locale and time zone watched for errors, and the steps every test takes first
// (the dev sign-in of a new owner, a key made in the page).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DATE_TIME } from '../../web/src/format.ts';
import { CHROMIUM, launchBrowser, watchForErrors } from './browser.ts';
import { startTestServer, type ApiClient, type TestServer } from './server.ts';
import { EMBEDDED_RUN } from './runs.ts';
import { cookieClient, SESSION_COOKIE } from './session.ts';

export const TIME_ZONE = 'America/New_York';

// Without Chromium (apt-get install chromium) the tests are skipped, saying so; under CI=true they must run.
const chromiumRuns = existsSync(CHROMIUM) || Boolean(process.env.CI);
/**
 * The pages are a client of the API, which the API's own tests cover on both databases: the browser
 * tests run once, on the embedded run (tests/helpers/runs.ts). Twice, as .ci/run had them, the
 * second Chromium beside the other suite was most of what made either run slow.
 */
export const browserRuns = chromiumRuns && EMBEDDED_RUN;
export const suiteTitle = (title: string) =>
  browserRuns
    ? title
    : !EMBEDDED_RUN
      ? `${title} (on the embedded database's run only)`
      : `${title} (skipped: no Chromium at ${CHROMIUM}; under CI=true this fails instead)`;

export interface Dashboard {
  server: TestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** What the pages must never do (watchForErrors): expected empty at the end. */
  problems: string[];
}

/** A browser context as the viewer's: US English, New York time, a desktop window. */
export const viewerContext = (browser: Browser) =>
  browser.newContext({ locale: 'en-US', timezoneId: TIME_ZONE, viewport: { width: 1200, height: 900 } });

export async function openDashboard(env?: Record<string, string>, publicHost?: string): Promise<Dashboard> {
  const [server, browser] = await Promise.all([startTestServer(env, publicHost), launchBrowser()]);
  const context = await viewerContext(browser);
  const page = await context.newPage();
  // As patient as expect.poll (vitest.config.ts): a loaded machine may take that long to settle a page.
  page.setDefaultTimeout(30_000);
  return { server, browser, context, page, problems: watchForErrors(page) };
}

export async function closeDashboard(dashboard: Dashboard | undefined): Promise<void> {
  await dashboard?.browser.close();
  await dashboard?.server.close();
}

/**
 * The test file's dashboard: opened before its tests when Chromium runs, closed after them.
 * `env` gives the server's settings (and may first start the fakes it talks to); `opened` receives it.
 */
export function dashboardForFile(
  opened: (dashboard: Dashboard) => void,
  env: () => Promise<Record<string, string>> | Record<string, string> = () => ({}),
  publicHost?: string,
): void {
  let dashboard: Dashboard | undefined;
  beforeAll(async () => {
    if (!browserRuns) return;
    dashboard = await openDashboard(await env(), publicHost);
    opened(dashboard);
  }, 60_000);
  afterAll(() => closeDashboard(dashboard));
}

/** A link of the site's navigation. */
export const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name });

/** The viewer's local time, as the page formats it (its options, in the browser's time zone). */
export const local = (iso: string) => new Intl.DateTimeFormat('en-US', { ...DATE_TIME, timeZone: TIME_ZONE }).format(new Date(iso));

/** Signs a new owner in with the dev sign-in, from the signed-out page; lands on the Overview. */
export async function devSignInNew(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name: 'Dev sign-in' }).click();
  await page.getByLabel('Display name').fill(name);
  await page.getByRole('button', { name: 'Create and sign in' }).click();
  await page.getByRole('heading', { name: 'What awaits you' }).waitFor();
  await page.getByText('Signed in as').getByText(name).waitFor();
}

/** Creates an API key on the API keys page and returns its secret (shown once) and its owner. */
export async function createKeyInPage(page: Page, server: TestServer, name: string, hostedAgentId: string) {
  await navLink(page, 'API keys').click();
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Hosted agent id (optional)').fill(hostedAgentId);
  await page.getByRole('button', { name: 'Create key' }).click();
  const apiKey = (await page.getByTestId('secret').textContent())!;
  expect(apiKey).toMatch(/^gm_live_/);
  await page.getByTestId('keys').getByText(hostedAgentId).waitFor();
  const verified = await server.client(apiKey).GET('/api/keys/verify');
  expect(verified.data).toMatchObject({ hosted_agent_id: hostedAgentId });
  return { apiKey, userId: verified.data!.user_id, apiKeyId: verified.data!.api_key_id };
}

export interface SignedInOwner {
  userId: string;
  /** A spec-checked client on the page's own session cookie (same origin, as the page sends). */
  api: ApiClient;
}

/** Opens `/`, signs a new owner in with the dev sign-in in the page, and returns an API client on the page's session. */
export async function signInNewOwner(
  dashboard: Pick<Dashboard, 'server' | 'context' | 'page'>,
  displayName: string,
): Promise<SignedInOwner> {
  const { server, context, page } = dashboard;
  await page.goto(`${server.url}/`);
  await devSignInNew(page, displayName);
  const session = (await context.cookies(server.url)).find((c) => c.name === SESSION_COOKIE);
  if (!session) throw new Error('the dev sign-in set no session cookie in the browser');
  const api = cookieClient(server, `${SESSION_COOKIE}=${session.value}`, { origin: server.url });
  const me = await api.GET('/api/profile/me');
  if (!me.data) throw new Error(`GET /api/profile/me on the page's session answered ${me.response.status}`);
  return { userId: me.data.user_id, api };
}
