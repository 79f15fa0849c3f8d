// Webhook endpoints over HTTP: registering (the secret once, the URL checked, the cap), listing,
// changing, deleting, rotating the secret, the test delivery, the attempts, and another user's
// endpoint (404). Deliveries of events and their retries: webhook-delivery.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { testFileServer, startTestServer, type TestUser } from '../helpers/server.ts';
import { signInDev } from '../helpers/session.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { webhookEndpoints } from '../../db/schema.ts';
import type { EventType } from '../../src/domain/events.ts';
import { MAX_ENDPOINTS_PER_USER } from '../../src/services/webhooks.ts';

const server = testFileServer({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
let receiver: WebhookReceiver;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [owner, stranger] = await server.users('Hook Owner', 'Hook Stranger');
});
afterAll(async () => {
  await receiver?.close();
});

type Api = typeof owner.api;
async function createEndpoint(api: Api, body: { url: string; description?: string; event_types?: EventType[] | null } = { url: '' }) {
  const res = await api.POST('/api/webhooks', { body: { ...body, url: body.url || `${receiver.url}/hook` } });
  expect(res.response.status, JSON.stringify(res.error)).toBe(201);
  return res.data!;
}

const verify = (secret: string, r: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>);

describe('POST /api/webhooks', () => {
  it('registers an endpoint with an API key, shows the whsec_ secret once, and never lists it', async () => {
    const created = await createEndpoint(owner.api, {
      url: `${receiver.url}/a`,
      description: ' agent ',
      event_types: ['gig.created', 'gig.created'],
    });
    expect(created).toMatchObject({
      url: `${receiver.url}/a`,
      description: 'agent',
      event_types: ['gig.created'],
      enabled: true,
      disabled_at: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const [row] = await server.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row).toMatchObject({ userId: owner.userId, secret: created.secret });

    const listed = await owner.api.GET('/api/webhooks');
    expect(listed.data!.data.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(listed.data)).not.toContain(created.secret);
    const got = await owner.api.GET('/api/webhooks/{id}', { params: { path: { id: created.id } } });
    expect(got.data).toEqual(Object.fromEntries(Object.entries(created).filter(([k]) => k !== 'secret')));
  });

  it('does not store the secret for an Idempotency-Key: a retry makes no second endpoint and gets 409', async () => {
    const user = await server.user('Idempotent');
    const body = { url: `${receiver.url}/idem` };
    const first = await user.api.POST('/api/webhooks', { body, params: { header: { 'Idempotency-Key': 'create-hook-1' } } });
    expect(first.response.status).toBe(201);
    const retry = await user.api.POST('/api/webhooks', { body, params: { header: { 'Idempotency-Key': 'create-hook-1' } } });
    expectError(retry, 409, 'CONFLICT');
    expect((await user.api.GET('/api/webhooks')).data!.data).toHaveLength(1);
  });

  it('lets a browser session manage webhooks too', async () => {
    const session = await signInDev(server, { userId: owner.userId });
    const created = await createEndpoint(session.api, { url: `${receiver.url}/session`, event_types: null });
    expect(created.event_types).toBeNull();
    expect((await session.api.DELETE('/api/webhooks/{id}', { params: { path: { id: created.id } } })).response.status).toBe(204);
  });

  it('refuses invalid input', async () => {
    expectInvalid(await owner.api.POST('/api/webhooks', { body: {} as never }), 'body.url');
    expectInvalid(await owner.api.POST('/api/webhooks', { body: { url: 'not a url' } }), 'body.url');
    expectInvalid(await owner.api.POST('/api/webhooks', { body: { url: 'ftp://example.com/x' } }), 'body.url');
    expectInvalid(await owner.api.POST('/api/webhooks', { body: { url: `${receiver.url}/x`, event_types: [] } }), 'body.event_types');
    expectInvalid(
      await owner.api.POST('/api/webhooks', { body: { url: `${receiver.url}/x`, event_types: ['gig.exploded' as EventType] } }),
      'body.event_types[0]',
    );
    // Link-local (cloud metadata) stays refused even where private networks are allowed.
    const metadata = await owner.api.POST('/api/webhooks', { body: { url: 'http://169.254.169.254/latest/meta-data' } });
    expectInvalid(metadata, 'body.url');
  });

  it('needs credentials', async () => {
    expectError(await server.anonymous.GET('/api/webhooks'), 401, 'UNAUTHENTICATED');
    expectError(await server.anonymous.POST('/api/webhooks', { body: { url: `${receiver.url}/x` } }), 401, 'UNAUTHENTICATED');
  });

  it(`caps a user at ${MAX_ENDPOINTS_PER_USER} endpoints (409 beyond)`, async () => {
    const busy = await server.user('Busy');
    for (let i = 0; i < MAX_ENDPOINTS_PER_USER; i++)
      await createEndpoint(busy.api, { url: `${receiver.url}/n${i}`, event_types: ['gig.closed'] });
    expectError(await busy.api.POST('/api/webhooks', { body: { url: `${receiver.url}/one-more` } }), 409, 'CONFLICT');
    const page = await busy.api.GET('/api/webhooks', { params: { query: { limit: 15 } } });
    expect(page.data!.data).toHaveLength(15);
    const rest = await busy.api.GET('/api/webhooks', { params: { query: { cursor: page.data!.next_cursor! } } });
    expect(rest.data!.data).toHaveLength(5);
  });
});

describe('private addresses when they are not allowed (the default)', () => {
  it('refuses loopback by address and by name, and private networks, naming body.url', async () => {
    const strict = await startTestServer();
    try {
      const user = await strict.user();
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://10.0.0.7/hook', 'http://[::1]/hook']) {
        const res = await user.api.POST('/api/webhooks', { body: { url } });
        expectInvalid(res, 'body.url');
      }
    } finally {
      await strict.close();
    }
  });
});

describe('/api/webhooks/{id}', () => {
  it('changes, disables, re-enables and deletes an endpoint', async () => {
    const created = await createEndpoint(owner.api);
    const id = created.id;
    const changed = await owner.api.PATCH('/api/webhooks/{id}', {
      params: { path: { id } },
      body: { description: 'renamed', event_types: ['contract.approved'], url: `${receiver.url}/moved` },
    });
    expect(changed.data).toMatchObject({ description: 'renamed', event_types: ['contract.approved'], url: `${receiver.url}/moved` });

    const off = await owner.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { enabled: false } });
    expect(off.data).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    const on = await owner.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { enabled: true } });
    expect(on.data).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });

    expectInvalid(await owner.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: {} }), 'body');
    expectInvalid(
      await owner.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { url: 'http://169.254.169.254/' } }),
      'body.url',
    );

    expect((await owner.api.DELETE('/api/webhooks/{id}', { params: { path: { id } } })).response.status).toBe(204);
    expectError(await owner.api.GET('/api/webhooks/{id}', { params: { path: { id } } }), 404, 'NOT_FOUND');
  });

  it("answers 404 for another user's endpoint, on every operation, and changes nothing", async () => {
    const created = await createEndpoint(owner.api);
    const path = { id: created.id };
    const api = stranger.api;
    expectError(await api.GET('/api/webhooks/{id}', { params: { path } }), 404, 'NOT_FOUND');
    expectError(await api.PATCH('/api/webhooks/{id}', { params: { path }, body: { enabled: false } }), 404, 'NOT_FOUND');
    expectError(await api.DELETE('/api/webhooks/{id}', { params: { path } }), 404, 'NOT_FOUND');
    expectError(await api.POST('/api/webhooks/{id}/rotate-secret', { params: { path } }), 404, 'NOT_FOUND');
    expectError(await api.POST('/api/webhooks/{id}/test', { params: { path } }), 404, 'NOT_FOUND');
    expectError(await api.GET('/api/webhooks/{id}/deliveries', { params: { path } }), 404, 'NOT_FOUND');
    expectError(
      await api.POST('/api/webhooks/{id}/replay', { params: { path }, body: { since: new Date(0).toISOString() } }),
      404,
      'NOT_FOUND',
    );
    const test = await owner.api.POST('/api/webhooks/{id}/test', { params: { path } });
    expectError(
      await api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
        params: { path: { id: created.id, deliveryId: test.data!.id } },
      }),
      404,
      'NOT_FOUND',
    );
    const [row] = await server.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    expect(row).toMatchObject({ secret: created.secret, disabledAt: null });
  });
});

describe('test deliveries and rotation', () => {
  it('sends a signed test message now and records the attempt', async () => {
    const created = await createEndpoint(owner.api, { url: `${receiver.url}/test` });
    const before = receiver.received.length;
    const res = await owner.api.POST('/api/webhooks/{id}/test', { params: { path: { id: created.id } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      event_type: 'webhook.test',
      attempt: 1,
      succeeded: true,
      status_code: 200,
      response_excerpt: 'ok',
      error: null,
    });
    const request = receiver.received[before]!;
    expect(request.path).toBe('/test');
    expect(request.headers['webhook-id']).toBe(res.data!.event_id);
    const payload = verify(created.secret, request) as { id: string; type: string; data: { endpoint_id: string } };
    expect(payload).toMatchObject({ id: res.data!.event_id, type: 'webhook.test', data: { endpoint_id: created.id } });

    const deliveries = await owner.api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: created.id } } });
    expect(deliveries.data!.data).toEqual([res.data]);
    // A test message is not redelivered.
    const again = await owner.api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
      params: { path: { id: created.id, deliveryId: res.data!.id } },
    });
    expectError(again, 409, 'INVALID_STATE');
  });

  it('records a failed test delivery, and does not follow a redirect', async () => {
    const created = await createEndpoint(owner.api, { url: `${receiver.url}/redirected` });
    receiver.script('/redirected', { status: 302, location: `${receiver.url}/elsewhere` });
    const before = receiver.received.length;
    const res = await owner.api.POST('/api/webhooks/{id}/test', { params: { path: { id: created.id } } });
    expect(res.data).toMatchObject({ succeeded: false, status_code: 302 });
    expect(res.data!.error).toMatch(/^redirect: .*not followed/);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(['/redirected']);
  });

  it('rotates the secret: both secrets verify during the overlap', async () => {
    const created = await createEndpoint(owner.api, { url: `${receiver.url}/rotated` });
    const rotated = await owner.api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id: created.id } } });
    expect(rotated.response.status).toBe(200);
    expect(rotated.data!.secret).not.toBe(created.secret);
    const until = Date.parse(rotated.data!.previous_secret_until!);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const before = receiver.received.length;
    await owner.api.POST('/api/webhooks/{id}/test', { params: { path: { id: created.id } } });
    const request = receiver.received[before]!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated.data!.secret, request)).toBeTruthy();
    expect(verify(created.secret, request)).toBeTruthy();

    // After the overlap, only the new secret signs.
    await server.db
      .update(webhookEndpoints)
      .set({ previousSecretUntil: new Date(Date.now() - 1000) })
      .where(eq(webhookEndpoints.id, created.id));
    const next = receiver.received.length;
    await owner.api.POST('/api/webhooks/{id}/test', { params: { path: { id: created.id } } });
    const later = receiver.received[next]!;
    expect(verify(rotated.data!.secret, later)).toBeTruthy();
    expect(() => verify(created.secret, later)).toThrow();
  });

  it('refuses a replay without a valid since', async () => {
    const created = await createEndpoint(owner.api);
    expectInvalid(
      await owner.api.POST('/api/webhooks/{id}/replay', { params: { path: { id: created.id } }, body: {} as never }),
      'body.since',
    );
    expectInvalid(
      await owner.api.POST('/api/webhooks/{id}/replay', { params: { path: { id: created.id } }, body: { since: 'yesterday' } }),
      'body.since',
    );
  });
});
