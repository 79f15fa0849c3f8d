// Signing in with GitHub in a real browser (Chromium through playwright-core), against the local
// fake of GitHub's OAuth web flow (tests/fakes/github.ts): the signed-out page offers "Sign in with
// GitHub" and no dev sign-in; the button goes to the fake's authorize endpoint, which approves and
// redirects back to our callback; the owner lands on the Overview signed in under their GitHub
// name. Signing out returns to the signed-out page, and the old session cookie is refused. A link
// to a page followed in that signed-out tab (only the hash changes) is where the next sign-in lands.
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeGithub, type FakeGithub } from '../fakes/github.ts';
import { checkPage } from '../helpers/browser.ts';
import { browserRuns, dashboardForFile, suiteTitle, type Dashboard } from '../helpers/dashboard.ts';
import { SESSION_COOKIE, cookieClient } from '../helpers/session.ts';

let fake: FakeGithub;
let world: Dashboard;
let page: Page;

dashboardForFile(
  (opened) => {
    world = opened;
    page = opened.page;
  },
  async () => (fake = await startFakeGithub()).env,
);
afterAll(() => fake?.close());

/** The URLs the page navigated to (top-level documents, redirects included), in order. */
function navigations(p: Page): string[] {
  const seen: string[] = [];
  p.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === p.mainFrame()) seen.push(request.url());
  });
  return seen;
}

const sessionCookie = async () => (await world.context.cookies(world.server.url)).find((c) => c.name === SESSION_COOKIE);

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: signing in with GitHub'), () => {
  let visited: string[];
  let userId: string;

  it('offers "Sign in with GitHub" and no dev sign-in when a GitHub client is configured', async () => {
    visited = navigations(page);
    await page.goto(`${world.server.url}/`);
    await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    expect(await page.getByRole('link', { name: 'Dev sign-in' }).count()).toBe(0);
    expect(await page.getByText('no GitHub OAuth client is configured').count()).toBe(0);
    expect(await sessionCookie()).toBeUndefined();
    await checkPage(page, 'github-signed-out');
  });

  it("goes through GitHub's authorize step and comes back signed in as the GitHub user, on the Overview", async () => {
    fake.signInAs({ id: 4242, login: 'grace-gh', name: 'Grace Hopper' });
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.getByRole('heading', { name: 'What awaits you' }).waitFor();
    await page.getByText('Signed in as').getByText('Grace Hopper').waitFor();
    expect(page.url()).toBe(`${world.server.url}/`);

    // The browser itself went to the fake's authorize endpoint with our client id and callback,
    // and back to the callback with the code and the same state.
    const authorize = visited.map((u) => new URL(u)).find((u) => u.href.startsWith(`${fake.url}/login/oauth/authorize`));
    expect(authorize?.searchParams.get('client_id')).toBe(fake.clientId);
    expect(authorize?.searchParams.get('redirect_uri')).toBe(`${world.server.url}/auth/github/callback`);
    const callback = visited.map((u) => new URL(u)).find((u) => u.href.startsWith(`${world.server.url}/auth/github/callback`));
    expect(callback?.searchParams.get('code')).toMatch(/\w+/);
    expect(callback?.searchParams.get('state')).toBe(authorize?.searchParams.get('state'));
    // The server exchanged the code at the token endpoint (never the browser).
    expect(fake.requests.filter((r) => r.path === '/login/oauth/access_token')).toHaveLength(1);

    const cookie = await sessionCookie();
    expect(cookie?.httpOnly).toBe(true);
    const api = cookieClient(world.server, `${SESSION_COOKIE}=${cookie!.value}`, { origin: world.server.url });
    const me = await api.GET('/api/profile/me');
    expect(me.data).toMatchObject({ display_name: 'Grace Hopper', github_login: 'grace-gh' });
    userId = me.data!.user_id;
    await checkPage(page, 'github-overview');
  });

  it('signs out to the signed-out page, and the old session cookie no longer works', async () => {
    const cookie = await sessionCookie();
    const api = cookieClient(world.server, `${SESSION_COOKIE}=${cookie!.value}`, { origin: world.server.url });
    expect((await api.GET('/api/profile/me')).response.status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    expect(await page.getByText('Signed in as').count()).toBe(0);
    expect(await sessionCookie()).toBeUndefined();
    const after = await api.GET('/api/profile/me');
    expect(after.response.status).toBe(401);
    expect(after.error?.error.code).toBe('UNAUTHENTICATED');
  });

  it('signs the same GitHub user in again from a link followed in the signed-out tab, back on its page', async () => {
    await page.goto(`${world.server.url}/#/credits`); // the same document: only the hash changes
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.getByRole('heading', { name: 'Credits', level: 1 }).waitFor();
    await page.getByText('Signed in as').getByText('Grace Hopper').waitFor();
    const cookie = await sessionCookie();
    const api = cookieClient(world.server, `${SESSION_COOKIE}=${cookie!.value}`, { origin: world.server.url });
    const { data: me } = await api.GET('/api/profile/me');
    expect(me).toMatchObject({ user_id: userId, github_login: 'grace-gh' }); // the same account, found by GitHub's user id
  });

  it('met no script error and no Content-Security-Policy violation', () => {
    expect(world.problems).toEqual([]);
  });
});
