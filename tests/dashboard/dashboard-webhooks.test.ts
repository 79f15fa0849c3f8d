// The dashboard's Webhooks pages in a real browser (Chromium through playwright-core), delivering to
// a local receiver (tests/fakes/webhook-receiver.ts; the server allows private URLs for it). An
// owner registers an endpoint for two event types and sees its signing secret once (not after a
// reload); sends a test event, which the receiver gets signed with that secret, and sees the
// attempt with its status; a receiver answering 503 leaves a failed attempt with its next retry,
// and "Redeliver" makes a second attempt that succeeds. The owner rotates the secret (the new one
// shown once and signing the next test), disables and enables the endpoint, replays an event never
// delivered, edits its settings, and deletes it (confirmed; the API then answers 404). Each page is
// checked with axe-core and saved in test-results/dashboard/.
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { checkPage } from '../helpers/browser.ts';
import {
  browserRuns,
  dashboardForFile,
  local,
  navLink,
  signInNewOwner,
  suiteTitle,
  type Dashboard,
  type SignedInOwner,
} from '../helpers/dashboard.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../fakes/webhook-receiver.ts';

let world: Dashboard;
let page: Page;
let receiver: WebhookReceiver;

dashboardForFile(
  (opened) => {
    world = opened;
    page = opened.page;
  },
  async () => {
    receiver = await startWebhookReceiver();
    return { WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' };
  },
);
afterAll(() => receiver?.close());

const nav = (name: string) => navLink(page, name);

/** The request verifies with `secret` (Standard Webhooks), and is of this event type. */
function expectSigned(request: ReceivedRequest, secret: string, type: string) {
  const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string };
  expect(payload.type).toBe(type);
}

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: webhooks'), () => {
  let owner: SignedInOwner;
  let endpointId: string;
  let secret: string;
  const url = () => `${receiver.url}/hooks/gigmarket`;
  const deliveries = () => page.getByTestId('deliveries');
  const rowsOf = (type: string) => deliveries().getByRole('row').filter({ hasText: type });
  const apiDeliveries = async () =>
    (await owner.api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: endpointId }, query: { limit: 100 } } })).data!.data;
  const endpoint = async () => (await owner.api.GET('/api/webhooks/{id}', { params: { path: { id: endpointId } } })).data!;
  const createGig = async (title: string) => {
    const gig = await owner.api.POST('/api/gigs', { body: { title, description: 'x', tags: ['hooks'], rate_cents: 5000 } });
    expect(gig.response.status).toBe(201);
  };

  it('registers an endpoint for chosen event types and shows its signing secret once', async () => {
    owner = await signInNewOwner(world, 'Hanna Hooks');
    await nav('Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet.', { exact: false }).waitFor();
    await checkPage(page, 'webhooks-empty');

    await page.getByLabel('URL').fill(url());
    await page.getByLabel('Description (optional)').fill('agent <prod>');
    await page.getByLabel('Only the types chosen below').check();
    await page.getByText('Choose at least one type.').waitFor();
    expect(await page.getByRole('button', { name: 'Register endpoint' }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'gig.created', exact: true }).check();
    await page.getByRole('checkbox', { name: 'gig.closed', exact: true }).check();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    secret = (await page.getByTestId('secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    await page.getByText('copy it now; it will not be shown again.').waitFor();

    const listed = (await owner.api.GET('/api/webhooks')).data!.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ url: url(), description: 'agent <prod>', event_types: ['gig.created', 'gig.closed'], enabled: true });
    endpointId = listed[0]!.id;
    const row = page.getByTestId('endpoints').getByRole('row').filter({ hasText: url() });
    await expect
      .poll(() => row.innerText())
      .toBe(`${url()}\tagent <prod>\tgig.created, gig.closed\tEnabled\t${local(listed[0]!.created_at)}`);
    await checkPage(page, 'webhooks');

    await page.reload();
    await row.waitFor();
    expect(await page.getByTestId('secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  it('sends a test event, which arrives signed, and shows the attempt with its status', async () => {
    await page.getByRole('link', { name: url() }).click();
    expect(new URL(page.url()).hash).toBe(`#/webhooks/${endpointId}`);
    await page.getByRole('heading', { name: url(), level: 1 }).waitFor();
    await page.getByText('No deliveries yet.', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => page.getByTestId('test-outcome').textContent()).toMatch(/^Test event delivered: HTTP 200 in \d+ ms\.$/);
    const [request] = await receiver.waitFor(1);
    expect(request!.path).toBe('/hooks/gigmarket');
    expectSigned(request!, secret, 'webhook.test');
    const test = rowsOf('webhook.test');
    await expect.poll(() => test.count()).toBe(1);
    expect(await test.innerText()).toMatch(/webhook\.test\s+[0-9a-f-]{36}\s+1\s+200/);
    await test.getByText('Test events are not redelivered').waitFor();
    await checkPage(page, 'webhook');
  });

  it('shows a failed attempt with its next retry, and redelivers it', async () => {
    receiver.script('/hooks/gigmarket', { status: 503, retryAfter: '3600', body: 'down for <maintenance>' });
    await createGig('Hooked gig');
    const failed = rowsOf('gig.created');
    await expect.poll(() => failed.count(), { timeout: 60_000 }).toBe(1);
    const [attempt] = (await apiDeliveries()).filter((d) => d.event_type === 'gig.created');
    expect(attempt).toMatchObject({ attempt: 1, succeeded: false, status_code: 503, response_excerpt: 'down for <maintenance>' });
    expect(attempt!.next_retry_at).not.toBeNull(); // an hour away (Retry-After), so no automatic retry meanwhile
    const text = await failed.innerText();
    expect(text).toContain('503');
    expect(text).toContain('down for <maintenance>');
    expect(text).toContain(attempt!.error!);
    expect(text).toContain(local(attempt!.next_retry_at!));
    expect(text).toContain(attempt!.event_id);
    const failingSince = (await endpoint()).failing_since;
    expect(failingSince).not.toBeNull();
    await page
      .getByTestId('endpoint-state')
      .getByText(`Failing since ${local(failingSince!)}.`)
      .waitFor();
    await checkPage(page, 'webhook-failed');

    await page.getByRole('button', { name: 'Redeliver gig.created (attempt 1)' }).click();
    await page.getByText('Queued.').waitFor();
    await expect.poll(() => rowsOf('gig.created').count(), { timeout: 60_000 }).toBe(2);
    const again = (await apiDeliveries()).find((d) => d.event_type === 'gig.created' && d.attempt === 2);
    expect(again).toMatchObject({ succeeded: true, status_code: 200, event_id: attempt!.event_id });
    expect(await rowsOf('gig.created').first().innerText()).toMatch(/gig\.created\s+[0-9a-f-]{36}\s+2\s+200/);
    const received = receiver.received.filter((r) => r.headers['webhook-id'] === attempt!.event_id);
    expect(received).toHaveLength(2);
    expectSigned(received[1]!, secret, 'gig.created');
    expect((await endpoint()).failing_since).toBeNull(); // a success ends the failing streak
    await page.getByTestId('endpoint-state').getByText('Failing since', { exact: false }).waitFor({ state: 'detached' });
  });

  it('rotates the secret: the new one is shown once and signs the next delivery', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Yes, rotate' }).click();
    await expect.poll(() => page.getByTestId('secret').textContent()).toMatch(/^whsec_/);
    const rotated = (await page.getByTestId('secret').textContent())!;
    expect(rotated).not.toBe(secret);
    const after = await endpoint();
    expect(after.previous_secret_until).not.toBeNull();
    await page.getByTestId('endpoint-state').getByText('The previous secret also signs until', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByTestId('secret').count()).toBe(0);

    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const requests = await receiver.waitFor(before + 1);
    expectSigned(requests[before]!, rotated, 'webhook.test');
    expectSigned(requests[before]!, secret, 'webhook.test'); // the previous secret signs too, for 24 hours
    secret = rotated;
  });

  it('disables and enables the endpoint, and replays an event never delivered', async () => {
    const state = page.getByTestId('endpoint-state');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await state.getByText('Disabled: disabled by you').waitFor();
    expect(await endpoint()).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    expect(await page.getByRole('button', { name: 'Redeliver gig.created (attempt 1)' }).isDisabled()).toBe(true);
    await page.getByText('This endpoint is disabled: enable it to redeliver or replay.').waitFor();
    await checkPage(page, 'webhook-disabled');

    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await state.getByText('Enabled', { exact: true }).waitFor();
    expect(await endpoint()).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });

    receiver.script('/hooks/gigmarket', { status: 503, retryAfter: '3600', body: 'broken' });
    await createGig('Second hooked gig');
    const broken = deliveries().getByRole('row').filter({ hasText: 'broken' });
    await expect.poll(() => broken.count(), { timeout: 60_000 }).toBe(1);
    const failed = (await apiDeliveries()).find((d) => d.response_excerpt === 'broken')!;
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click();
    await page.getByText('1 event queued.').waitFor(); // the first gig's event was redelivered: not replayed
    const replayed = () => apiDeliveries().then((all) => all.find((d) => d.event_id === failed.event_id && d.attempt === 2));
    await expect.poll(replayed, { timeout: 60_000 }).toMatchObject({ succeeded: true, status_code: 200 });
    await expect.poll(() => rowsOf(failed.event_id).count()).toBe(2);
  });

  it('edits the settings: description and every event type', async () => {
    const description = page.getByLabel('Description (optional)');
    await description.fill('agent, staging');
    await page.getByLabel('All events', { exact: false }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await endpoint()).toMatchObject({ description: 'agent, staging', event_types: null, url: url() });
    expect(await page.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
  });

  it('fits a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [hash, name] of [
      ['#/webhooks', 'webhooks-phone'],
      [`#/webhooks/${endpointId}`, 'webhook-phone'],
    ] as const) {
      await page.goto(`${world.server.url}/${hash}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expect.poll(() => page.getByText(/^Loading /).count()).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, name).toBeLessThanOrEqual(1);
      await checkPage(page, name);
    }
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it('deletes the endpoint, confirmed; the API then answers 404', async () => {
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/webhooks');
    await page.getByText('No endpoints yet.', { exact: false }).waitFor();
    const gone = await owner.api.GET('/api/webhooks/{id}', { params: { path: { id: endpointId } } });
    expect(gone.response.status).toBe(404);
    expect((await owner.api.GET('/api/webhooks')).data!.data).toEqual([]);
  });

  it('met no script error and no Content-Security-Policy violation', () => {
    expect(world.problems).toEqual([]);
  });
});
