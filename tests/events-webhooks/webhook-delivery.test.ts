// Delivering events to webhook endpoints, end to end on a shortened clock (WEBHOOK_RETRY_SCALE):
// a written event reaches the endpoints of the users in its audience, signed, as GET /api/events
// shows it; failed attempts are retried on the schedule, Retry-After honoured; 410 and five days of
// failures disable; redeliver and replay; one slow endpoint does not hold up another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { createdGig } from '../helpers/lifecycle.ts';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { gate } from '../helpers/gate.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { events, webhookEndpoints } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';
import type { EventType } from '../../src/domain/events.ts';
import { nextDelayMs, RETRY_SCHEDULE_SECONDS } from '../../src/services/webhook-delivery.ts';
import type { DeliveryResult } from '../../src/webhooks/safe-delivery.ts';

const SCALE = 0.001;
const server = testFileServer({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCALE: String(SCALE) });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** A user with an endpoint at `path` on the receiver. */
async function userWithEndpoint(path: string, eventTypes: EventType[] | null = null) {
  const user = await server.user(`Receiver ${path}`);
  const res = await user.api.POST('/api/webhooks', { body: { url: `${receiver.url}${path}`, event_types: eventTypes } });
  expect(res.response.status).toBe(201);
  return { user, endpoint: res.data! };
}

/** Writes a gig.created event for the user (their gig's client). */
const createGig = (user: User, title = 'Hooked gig') => createdGig(user, { title, description: 'x', rate_cents: 5000 });

const at = (path: string) => receiver.received.filter((r) => r.path === path);

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function deliveries(user: User, id: string) {
  const res = await user.api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 100 } } });
  return res.data!.data.slice().reverse(); // oldest first
}

async function endpointRow(id: string) {
  return (await server.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
}

describe('delivering events', () => {
  it('POSTs the event, signed, exactly as GET /api/events shows it, to the endpoints of its audience only', async () => {
    const { user, endpoint } = await userWithEndpoint('/audience');
    const other = await userWithEndpoint('/not-in-audience');
    const filtered = await server.user('Filtered');
    const f = await filtered.api.POST('/api/webhooks', { body: { url: `${receiver.url}/filtered`, event_types: ['gig.closed'] } });
    expect(f.response.status).toBe(201);

    const gig = await createGig(user);
    await createGig(filtered);
    const [request] = await until('the delivery', () => (at('/audience').length ? at('/audience') : undefined));
    const events = await user.api.GET('/api/events', { params: { query: { resource_id: gig.id } } });
    const event = events.data!.data[0]!;
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(new Webhook(endpoint.secret).verify(request!.body, request!.headers as Record<string, string>)).toEqual(event);

    const [attempt] = await until('the attempt recorded', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.length ? d : undefined;
    });
    expect(attempt).toMatchObject({
      event_id: event.id,
      event_type: 'gig.created',
      attempt: 1,
      succeeded: true,
      status_code: 200,
      next_retry_at: null,
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(at('/not-in-audience').filter((r) => r.body.includes(gig.id))).toEqual([]);
    expect(at('/filtered')).toEqual([]); // subscribed to gig.closed only
    expect(other.endpoint.id).toBeTruthy();
  });

  it('sends an endpoint only the events written after it was created, however late the relay dispatches', async () => {
    const { user, endpoint } = await userWithEndpoint('/from-now-on');
    // An event of the user's from before the endpoint existed, not yet dispatched (as a sign-up's
    // first credit grant can be while the relay lags).
    const created = (await endpointRow(endpoint.id)).createdAt;
    const earlier = newId();
    await server.db.insert(events).values({
      id: earlier,
      type: 'gig.created',
      resourceType: 'gig',
      resourceId: newId(),
      actorUserId: user.userId,
      audienceUserIds: [user.userId],
      data: {},
      createdAt: new Date(created.getTime() - 60_000),
    });
    const gig = await createGig(user);
    const [request] = await until('the later event', () => (at('/from-now-on').length ? at('/from-now-on') : undefined));
    expect(request!.body).toContain(gig.id);
    await new Promise((r) => setTimeout(r, 1000));
    expect(at('/from-now-on').map((r) => r.headers['webhook-id'])).not.toContain(earlier);
    expect((await server.db.select().from(events).where(eq(events.id, earlier)))[0]!.dispatchedAt).not.toBeNull();
  });

  it('retries failed attempts on the (shortened) schedule with the same webhook-id, then succeeds', async () => {
    const { user, endpoint } = await userWithEndpoint('/flaky');
    receiver.script('/flaky', { status: 500, body: 'boom' }, { status: 502 }, { status: 404 });
    await createGig(user);
    const attempts = await until('four attempts', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.length >= 4 ? d : undefined;
    });
    expect(attempts.map((a) => [a.attempt, a.succeeded, a.status_code])).toEqual([
      [1, false, 500],
      [2, false, 502],
      [3, false, 404],
      [4, true, 200],
    ]);
    expect(attempts[0]!.response_excerpt).toBe('boom');
    expect(attempts[0]!.error).toBe('status: HTTP 500');
    const requests = at('/flaky');
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Each retry waited at least its (scaled, jittered by at most 10 %) delay.
    for (let i = 1; i < 4; i++) {
      expect(requests[i]!.at - requests[i - 1]!.at).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[i]! * 1000 * SCALE * 0.9 - 5);
      expect(attempts[i - 1]!.next_retry_at).not.toBeNull();
    }
    expect((await endpointRow(endpoint.id)).failingSince).toBeNull(); // the success ended the streak
  });

  it('honours Retry-After on 429 and 503', async () => {
    const { user, endpoint } = await userWithEndpoint('/busy');
    receiver.script('/busy', { status: 429, retryAfter: '2' }, { status: 503, retryAfter: '1' });
    await createGig(user);
    await until('three attempts', async () => ((await deliveries(user, endpoint.id)).length >= 3 ? true : undefined));
    const requests = at('/busy');
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(1950);
    expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('disables an endpoint that answers 410 at once', async () => {
    const { user, endpoint } = await userWithEndpoint('/gone');
    receiver.script('/gone', { status: 410 });
    await createGig(user);
    const row = await until('disabled', async () => {
      const r = await endpointRow(endpoint.id);
      return r.disabledAt ? r : undefined;
    });
    expect(row.disabledReason).toBe('gone');
    // Its owner is told: an event in their feed (and to their other endpoints).
    const told = await user.api.GET('/api/events', {
      params: { query: { type: ['webhook_endpoint.disabled'], resource_id: endpoint.id } },
    });
    expect(told.data!.data).toHaveLength(1);
    expect(told.data!.data[0]!.data).toMatchObject({ id: endpoint.id, enabled: false, disabled_reason: 'gone' });
    expect(JSON.stringify(told.data)).not.toContain(endpoint.secret);
    // ...and a message in their inbox, which says why and links to the endpoint's page in the dashboard.
    const inbox = await until('the inbox message', async () => {
      const r = await user.api.GET('/api/notifications/inbox/messages');
      const disabled = r.data?.data.filter((m) => m.type === 'webhook_endpoint.disabled');
      return disabled?.length ? disabled : undefined;
    });
    expect(inbox).toHaveLength(1);
    expect(inbox[0]).toMatchObject({
      title: `Webhook endpoint disabled: ${endpoint.url}`,
      body: expect.stringContaining('410 Gone'),
      link: `${server.url}/#/webhooks/${endpoint.id}`,
      read: false,
    });
    await createGig(user, 'after the 410');
    await new Promise((r) => setTimeout(r, 1500));
    expect(at('/gone')).toHaveLength(1);
    const got = await user.api.GET('/api/webhooks/{id}', { params: { path: { id: endpoint.id } } });
    expect(got.data).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    // PATCH enabled: true brings it back: the next event is delivered.
    const on = await user.api.PATCH('/api/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { enabled: true } });
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    await createGig(user, 'after re-enabling');
    await until('the delivery after re-enabling', () => (at('/gone').length >= 2 ? true : undefined));
  });

  it('disables an endpoint whose every attempt has failed for five (scaled) days', async () => {
    const { user, endpoint } = await userWithEndpoint('/dead');
    // Failing since longer ago than 5 days × the scale (432 s).
    await server.db
      .update(webhookEndpoints)
      .set({ failingSince: new Date(Date.now() - 500_000) })
      .where(eq(webhookEndpoints.id, endpoint.id));
    receiver.script('/dead', { status: 500 });
    await createGig(user);
    const row = await until('disabled', async () => {
      const r = await endpointRow(endpoint.id);
      return r.disabledAt ? r : undefined;
    });
    expect(row.disabledReason).toBe('failing');
    const told = await user.api.GET('/api/events', {
      params: { query: { type: ['webhook_endpoint.disabled'], resource_id: endpoint.id } },
    });
    expect(told.data!.data[0]!.data).toMatchObject({ id: endpoint.id, disabled_reason: 'failing' });
    const [attempt] = await deliveries(user, endpoint.id);
    expect(attempt).toMatchObject({ succeeded: false, next_retry_at: null });
  });

  it('counts an attempt the URL check refuses as a failed attempt', async () => {
    const { user, endpoint } = await userWithEndpoint('/moved-to-metadata');
    await server.db.update(webhookEndpoints).set({ url: 'http://169.254.169.254/latest' }).where(eq(webhookEndpoints.id, endpoint.id));
    await createGig(user);
    const [attempt] = await until('the refused attempt', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.length ? d : undefined;
    });
    expect(attempt).toMatchObject({ succeeded: false, status_code: null });
    expect(attempt!.error).toMatch(/^refused: /);
    expect(attempt!.next_retry_at).not.toBeNull();
    await user.api.DELETE('/api/webhooks/{id}', { params: { path: { id: endpoint.id } } });
  });

  it('redelivers one delivery, with the same webhook-id and the next attempt number', async () => {
    const { user, endpoint } = await userWithEndpoint('/redeliver');
    await createGig(user);
    const [first] = await until('the first attempt', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.length ? d : undefined;
    });
    const res = await user.api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
      params: { path: { id: endpoint.id, deliveryId: first!.id } },
    });
    expect(res.response.status).toBe(202);
    expect(res.data).toEqual({ queued: 1 });
    const all = await until('the redelivery', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.length >= 2 ? d : undefined;
    });
    expect(all[1]).toMatchObject({ event_id: first!.event_id, attempt: 2, succeeded: true });
    const requests = at('/redeliver');
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([first!.event_id, first!.event_id]);
  });

  it('replays every failed delivery since a time, after the endpoint is fixed and re-enabled', async () => {
    const { user, endpoint } = await userWithEndpoint('/replay');
    const since = new Date().toISOString();
    const path = { id: endpoint.id };
    const disabled = () => until('disabled', async () => ((await endpointRow(endpoint.id)).disabledAt ? true : undefined));
    // Each event's only attempt gets 410 (no retry follows), which disables the endpoint: re-enable it in between.
    receiver.script('/replay', { status: 410 });
    await createGig(user, 'first');
    await disabled();
    const refused = await user.api.POST('/api/webhooks/{id}/replay', { params: { path }, body: { since } });
    expect(refused.response.status).toBe(409);
    await user.api.PATCH('/api/webhooks/{id}', { params: { path }, body: { enabled: true } });
    receiver.script('/replay', { status: 410 });
    await createGig(user, 'second');
    await disabled();
    await user.api.PATCH('/api/webhooks/{id}', { params: { path }, body: { enabled: true } });
    const failed = (await deliveries(user, endpoint.id)).map((d) => d.event_id);
    expect(failed).toHaveLength(2);

    const replayed = await user.api.POST('/api/webhooks/{id}/replay', { params: { path }, body: { since } });
    expect(replayed.response.status).toBe(202);
    expect(replayed.data).toEqual({ queued: 2 });
    const after = await until('both events delivered', async () => {
      const d = await deliveries(user, endpoint.id);
      return d.filter((x) => x.succeeded).length >= 2 ? d : undefined;
    });
    expect(
      after
        .filter((x) => x.succeeded)
        .map((x) => [x.event_id, x.attempt])
        .sort(),
    ).toEqual(failed.map((id) => [id, 2]).sort());
    // Nothing is left to replay; and nothing failed before `since` is replayed.
    expect((await user.api.POST('/api/webhooks/{id}/replay', { params: { path }, body: { since } })).data).toEqual({ queued: 0 });
  });

  it('does not let a slow endpoint hold up another one, nor have more than four attempts at once', async () => {
    const slow = await userWithEndpoint('/slow');
    const fast = await userWithEndpoint('/fast');
    receiver.fallback = { status: 200, body: 'ok' };
    // The slow endpoint's next five requests are answered only when the test opens the gate: what
    // this proves holds on a machine of any speed.
    const held = gate();
    receiver.script('/slow', ...Array.from({ length: 5 }, () => ({ status: 200, until: held.until })));
    for (let i = 1; i <= 5; i++) await createGig(slow.user, `s${i}`);
    await until('four attempts at the slow endpoint', () => (at('/slow').length >= 4 ? true : undefined));
    // The fast endpoint's event, created after the slow one's five, is delivered while all four
    // slow attempts still wait on the gate...
    await createGig(fast.user, 'f1');
    await until('the fast delivery', () => (at('/fast').length ? true : undefined));
    // ...and the slow endpoint's fifth waits for one of its four to end: none has, so it has not come.
    expect(at('/slow')).toHaveLength(4);
    const opened = Date.now();
    held.open();
    await until('the fifth slow delivery', () => (at('/slow').length >= 5 ? true : undefined));
    expect(at('/slow')[4]!.at).toBeGreaterThanOrEqual(opened);
  });
});

describe('the retry schedule', () => {
  const failed = (status: number | null, retryAfterSeconds: number | null = null): DeliveryResult => ({
    status,
    durationMs: 1,
    responseExcerpt: null,
    retryAfterSeconds,
    error: { kind: 'status', message: 'x' },
  });

  it("is Svix's, with at most 10 % jitter, and ends after the eighth attempt", () => {
    const delays = RETRY_SCHEDULE_SECONDS.slice(1);
    expect(delays).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    delays.forEach((seconds, i) => {
      expect(nextDelayMs(i, failed(500), 1, () => 0)).toBe(Math.round(seconds * 900));
      expect(nextDelayMs(i, failed(500), 1, () => 1)).toBe(Math.round(seconds * 1100));
    });
    expect(nextDelayMs(RETRY_SCHEDULE_SECONDS.length - 1, failed(500), 1)).toBeNull();
    expect(nextDelayMs(0, failed(500), 0.001, () => 0.5)).toBe(5);
  });

  it('waits for a longer Retry-After on 429 and 503 only, up to 10 hours', () => {
    expect(nextDelayMs(0, failed(429, 60), 1, () => 0.5)).toBe(60_000);
    expect(nextDelayMs(0, failed(503, 60), 1, () => 0.5)).toBe(60_000);
    expect(nextDelayMs(0, failed(500, 60), 1, () => 0.5)).toBe(5000);
    expect(nextDelayMs(2, failed(429, 1), 1, () => 0.5)).toBe(1_800_000); // a shorter one does not hasten the schedule
    expect(nextDelayMs(0, failed(429, 10 ** 9), 1, () => 0.5)).toBe(36_000_000);
  });
});
