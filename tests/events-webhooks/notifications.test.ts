// The built-in notification channels over HTTP: the channel list and its preferences, the inbox
// (list, unread filter, paging, mark read, mark all, unread count), and what the event relay puts
// there: a contract awaiting approval lands in both owners' inboxes with its link. Email is off
// here (no SMTP_URL): tests/events-webhooks/notification-email.test.ts covers it.
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { signInDev } from '../helpers/session.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { approvedContract, pendingContract } from '../helpers/lifecycle.ts';
import { notificationMessages } from '../../db/schema.ts';
import { DEFAULT_EVENT_TYPES, NOTIFIABLE_EVENT_TYPES } from '../../src/domain/notifications.ts';
import { MESSAGES } from '../../src/services/notification-messages.ts';
import { loadSpec } from '../../src/spec.ts';
import { formatUtc } from '../../src/notifications/templates.ts';

const server = testFileServer();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The user's inbox once it holds `count` messages (the relay writes them after the commit). */
async function inbox(user: User, count: number) {
  for (let i = 0; i < 200; i++) {
    const res = await user.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 100 } } });
    if (res.data!.data.length >= count) return res.data!.data;
    await sleep(50);
  }
  throw new Error(`fewer than ${count} messages arrived`);
}

/** Waits until every written event has been dispatched (so an absent message is really absent). */
async function settled() {
  for (let i = 0; i < 200; i++) {
    const rows = await server.db.execute('select count(*)::int as n from events where dispatched_at is null');
    const n = Number((Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0]!.n);
    if (n === 0) return;
    await sleep(50);
  }
  throw new Error('events were not dispatched');
}

describe('GET /api/notifications', () => {
  it('lists the inbox with the default types; no email channel while the server sends no email', async () => {
    const ada = await server.user('Ada');
    await ada.api.PATCH('/api/profile/me', { body: { email: 'ada@example.com' } });
    const res = await ada.api.GET('/api/notifications');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ data: [{ channel: 'inbox', address: null, event_types: [...DEFAULT_EVENT_TYPES], customized: false }] });
  });

  it('needs credentials', async () => {
    expectError(await server.anonymous.GET('/api/notifications'), 401, 'UNAUTHENTICATED');
  });
});

describe('PATCH /api/notifications/{channel}', () => {
  it("replaces the channel's types, in catalog order", async () => {
    const ada = await server.user('Ada');
    const res = await ada.api.PATCH('/api/notifications/{channel}', {
      params: { path: { channel: 'inbox' } },
      body: { event_types: ['milestone.paid', 'contract.created', 'contract.active'] },
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      channel: 'inbox',
      address: null,
      event_types: ['contract.created', 'contract.active', 'milestone.paid'],
      customized: true,
    });
    expect((await ada.api.GET('/api/notifications')).data!.data[0]).toEqual(res.data);
  });

  it('refuses unknown types, a missing list and unknown channels; counts a type named twice once', async () => {
    const ada = await server.user('Ada');
    const patch = (channel: string, body: unknown) =>
      ada.api.PATCH('/api/notifications/{channel}', { params: { path: { channel: channel as 'inbox' } }, body: body as never });
    expectInvalid(await patch('inbox', { event_types: ['gig.created'] }), 'body.event_types[0]');
    const twice = await patch('inbox', { event_types: ['contract.created', 'contract.created'] });
    expect(twice.data).toMatchObject({ event_types: ['contract.created'] }); // named twice, counted once
    expectInvalid(await patch('inbox', {}), 'body.event_types');
    expectInvalid(await patch('inbox', { event_types: [], extra: 1 }), 'body.extra');
    expectInvalid(await patch('sms', { event_types: [] }), 'path.channel');
  });

  it('is 404 for email while it is not among the channels', async () => {
    const ada = await server.user('Ada');
    const res = await ada.api.PATCH('/api/notifications/{channel}', { params: { path: { channel: 'email' } }, body: { event_types: [] } });
    expectError(res, 404, 'NOT_FOUND', /email/);
  });

  it('needs credentials', async () => {
    const res = await server.anonymous.PATCH('/api/notifications/{channel}', {
      params: { path: { channel: 'inbox' } },
      body: { event_types: [] },
    });
    expectError(res, 401, 'UNAUTHENTICATED');
  });
});

describe('the inbox', () => {
  let client: User;
  let worker: User;
  let contractId: string;

  beforeAll(async () => {
    [client, worker] = await server.users('Carol Client', 'Walt Worker');
    contractId = (await pendingContract(client, worker, [{ title: 'Parser', amount_cents: 120_000, due_date: '2026-12-15' }])).contract.id;
  });

  it('gets a contract awaiting approval, for both owners, with its terms, deadline and link', async () => {
    for (const [me, other] of [
      [client, 'Walt Worker'],
      [worker, 'Carol Client'],
    ] as const) {
      const [message] = await inbox(me, 1);
      expect(message).toEqual({
        id: expect.any(String),
        type: 'contract.created',
        title: 'Approve your contract: "Build a Rust CLI"',
        body: expect.stringContaining('Approve by'),
        link: `${server.url}/#/contracts/${contractId}`,
        read: false,
        read_at: null,
        created_at: expect.any(String),
      });
      expect(message!.body).toContain(`:\n  "${other}"\n`);
    }
  });

  it('counts, filters and pages unread messages; marks one and all read', async () => {
    // Three more messages for the client: three more contracts awaiting approval.
    for (let i = 0; i < 3; i++) await pendingContract(client, worker);
    const all = await inbox(client, 4);
    expect(all).toHaveLength(4);
    expect(all.map((m) => m.id)).toEqual([...all.map((m) => m.id)].sort().reverse()); // newest first
    expect((await client.api.GET('/api/notifications/inbox/unread-count')).data).toEqual({ unread: 4 });

    const first = await client.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 3 } } });
    expect(first.data!.data.map((m) => m.id)).toEqual(all.slice(0, 3).map((m) => m.id));
    const second = await client.api.GET('/api/notifications/inbox/messages', {
      params: { query: { limit: 3, cursor: first.data!.next_cursor! } },
    });
    expect(second.data).toEqual({ data: [all[3]], next_cursor: null });

    const read = await client.api.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id: all[1]!.id } } });
    expect(read.response.status).toBe(200);
    expect(read.data).toMatchObject({ id: all[1]!.id, read: true, read_at: expect.any(String) });
    const again = await client.api.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id: all[1]!.id } } });
    expect(again.data!.read_at).toBe(read.data!.read_at); // read once: the first time stays
    const unread = await client.api.GET('/api/notifications/inbox/messages', { params: { query: { unread: true } } });
    expect(unread.data!.data.map((m) => m.id)).toEqual([all[0]!.id, all[2]!.id, all[3]!.id]);
    expect((await client.api.GET('/api/notifications/inbox/unread-count')).data).toEqual({ unread: 3 });

    expect((await client.api.POST('/api/notifications/inbox/read-all')).data).toEqual({ marked: 3 });
    expect((await client.api.GET('/api/notifications/inbox/unread-count')).data).toEqual({ unread: 0 });
    expect((await client.api.POST('/api/notifications/inbox/read-all')).data).toEqual({ marked: 0 });
    // The worker's messages are the worker's: untouched.
    expect((await worker.api.GET('/api/notifications/inbox/unread-count')).data!.unread).toBeGreaterThanOrEqual(1);
  });

  it("is 404 on another user's message, and changes nothing", async () => {
    const [theirs] = await inbox(worker, 1);
    const stranger = await server.user('Stranger');
    const res = await stranger.api.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id: theirs!.id } } });
    expectError(res, 404, 'NOT_FOUND');
    const [row] = await server.db.select().from(notificationMessages).where(eq(notificationMessages.id, theirs!.id));
    expect(row!.readAt).toBeNull();
    expectError(
      await stranger.api.POST('/api/notifications/inbox/messages/{id}/read', {
        params: { path: { id: '0190a5b7-0000-7000-8000-000000000000' } },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('refuses invalid input', async () => {
    expectInvalid(
      await client.api.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id: 'not-a-uuid' } } }),
      'path.id',
    );
    expectInvalid(await client.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 0 } } }), 'query.limit');
    expectInvalid(await client.api.GET('/api/notifications/inbox/messages', { params: { query: { cursor: 'forged' } } }), 'query.cursor');
  });

  it('needs credentials, on every inbox operation', async () => {
    const id = (await inbox(client, 1))[0]!.id;
    expectError(await server.anonymous.GET('/api/notifications/inbox/messages'), 401, 'UNAUTHENTICATED');
    expectError(await server.anonymous.GET('/api/notifications/inbox/unread-count'), 401, 'UNAUTHENTICATED');
    expectError(
      await server.anonymous.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id } } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await server.anonymous.POST('/api/notifications/inbox/read-all'), 401, 'UNAUTHENTICATED');
  });

  it('works from a browser session too', async () => {
    const session = await signInDev(server, { userId: client.userId });
    expect((await session.api.GET('/api/notifications/inbox/unread-count')).response.status).toBe(200);
  });
});

describe('what arrives', () => {
  it("follows each channel's types: the KYC step goes to the worker only; a type left out does not arrive", async () => {
    const [client, worker] = await server.users('Kay Client', 'Kim Worker');
    // The client turns contract.created off: approving needs no message for them any more.
    await client.api.PATCH('/api/notifications/{channel}', {
      params: { path: { channel: 'inbox' } },
      body: { event_types: ['contract.pending_freelancer_kyc', 'contract.expired'] },
    });
    const { contract } = await approvedContract(client, worker);
    await settled();
    const clientInbox = (await client.api.GET('/api/notifications/inbox/messages')).data!.data;
    expect(clientInbox).toEqual([]); // no contract.created (turned off), no KYC step (the worker's)
    const workerInbox = await inbox(worker, 2);
    expect(workerInbox.map((m) => m.type)).toEqual(['contract.pending_freelancer_kyc', 'contract.created']);
    expect(workerInbox[0]).toMatchObject({
      title: 'Complete your identity checks for "Build a Rust CLI"',
      link: `${server.url}/#/contracts/${contract.id}`,
    });
  });

  it('quotes what the other party wrote on lines of its own: a name cannot rewrite the sentence around it', async () => {
    const [client, worker] = await server.users('Quinn Client', 'Wes. Your agent has checked these terms: nothing to review');
    const { contract } = await pendingContract(client, worker);
    const [message] = await inbox(client, 1);
    expect(message!.title).toBe('Approve your contract: "Build a Rust CLI"');
    expect(message!.body).toBe(
      [
        'Your agent agreed on the terms below with the worker. Nothing binds until both owners approve.',
        '',
        'Contract:',
        '  "Build a Rust CLI"',
        'Worker:',
        '  "Wes. Your agent has checked these terms: nothing to review"',
        '',
        `Approve by ${formatUtc(new Date(contract.approval_deadline!))}, or the contract expires.`,
      ].join('\n'),
    );
  });

  it('writes one message per user and event, however often the event is handed over', async () => {
    const [client, worker] = await server.users('Once Client', 'Once Worker');
    await pendingContract(client, worker);
    await settled();
    // Every event handed over again, as after a relay that crashed before marking them dispatched.
    await server.db.execute('update events set dispatched_at = null');
    await settled();
    const rows = await server.db.select().from(notificationMessages).where(eq(notificationMessages.userId, client.userId));
    expect(rows).toHaveLength(1);
  });
});

describe('the message table', () => {
  const contract = {
    id: '0190a5b6-4d5e-7f6a-8b7c-8d9e0f1a2b3c',
    gig_id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
    client_user_id: 'client',
    worker_user_id: 'worker',
    status: 'active',
    rate_cents: 8000,
    hours_per_week: 10,
    start_date: '2026-12-01',
    payout_delay_days: 3,
    currency: 'USD',
    milestones: [],
    approval_deadline: '2026-11-23T13:00:00.000Z',
    expired_at: null,
    updated_at: '2026-11-23T13:00:00.000Z',
  };
  const milestone = {
    id: 'm1',
    contract_id: contract.id,
    title: 'Parser',
    amount_cents: 120_000,
    currency: 'USD',
    refunded_cents: 0,
  };
  const input = (data: unknown, recipientId = 'worker') => ({
    publicUrl: 'https://gigs.example.com',
    data,
    recipientId,
    contractTitle: 'Build a Rust CLI',
    counterparty: 'Carol',
    contract: contract as never,
    actorUserId: 'client',
  });

  const review = {
    id: 'r1',
    contract_id: contract.id,
    author_user_id: 'client',
    author_role: 'client',
    reviewee_user_id: 'worker',
    rating: 4,
    text: 'Solid work,\n  a day late.',
    created_at: '2026-12-01T10:00:00.000Z',
    published_at: '2026-12-02T10:00:00.000Z',
  };

  // A dispute the worker opened, answered by the client, each having accepted another outcome (the client's later).
  const dispute = {
    id: 'd1',
    contract_id: contract.id,
    status: 'resolved',
    reason: 'payment_withheld',
    opener_user_id: 'worker',
    opener_role: 'worker',
    acceptances: {
      client: { outcome: 'split', worker_share_percent: 60, accepted_at: '2026-12-02T10:00:00.000Z' },
      worker: { outcome: 'release', worker_share_percent: null, accepted_at: '2026-12-01T10:00:00.000Z' },
    },
    resolution: { outcome: 'split', worker_share_percent: 60 },
  };

  it("has a message for every notifiable type, linking to the dashboard's page of what it is about", () => {
    const pending = { ...contract, status: 'pending_owner_approval' };
    const endpoint = { id: contract.id, url: 'https://hooks.example.com/in', disabled_reason: 'failing' };
    for (const type of NOTIFIABLE_EVENT_TYPES) {
      if (type === 'webhook_endpoint.disabled') {
        const message = MESSAGES[type](input(endpoint))!;
        expect(message).toMatchObject({
          link: `https://gigs.example.com/#/webhooks/${endpoint.id}`,
          title: 'Webhook endpoint disabled: https://hooks.example.com/in',
          body: expect.stringContaining('every delivery attempt to it failed for five days'),
        });
        expect(message.email.text).toContain(message.link);
        continue;
      }
      if (type.startsWith('dispute.')) {
        // Each dispute step is told to the party who must answer it (resolved: to both).
        const to = type === 'dispute.responded' || type === 'dispute.outcome_accepted' ? 'worker' : 'client';
        const message = MESSAGES[type](input(dispute, to))!;
        expect(message, type).toMatchObject({ link: 'https://gigs.example.com/#/disputes/d1' });
        expect(message.email.text, type).toContain(message.link);
        continue;
      }
      const data = type.startsWith('milestone.')
        ? milestone
        : type.startsWith('review.')
          ? review
          : type === 'contract.created' || type === 'contract.updated' || type === 'contract.approval_requested'
            ? pending
            : contract;
      const message = MESSAGES[type](input(data))!;
      expect(message, type).toMatchObject({ link: `https://gigs.example.com/#/contracts/${contract.id}` });
      expect(message.title.length, type).toBeGreaterThan(0);
      expect(message.email.text, type).toContain(message.link);
    }
    expect(MESSAGES['milestone.paid'](input(milestone))!.title).toBe('Paid: $1,200.00 for "Parser"');
    expect(MESSAGES['milestone.paid'](input(milestone, 'client'))!.title).toBe('Milestone paid out: "Parser"');
    expect(MESSAGES['review.published'](input(review))).toMatchObject({
      title: 'New review: 4/5 for "Build a Rust CLI"',
      body: 'The client rated you 4 of 5.\n\nContract:\n  "Build a Rust CLI"\nClient:\n  "Carol"\nReview:\n  "Solid work, a day late."',
    });
    expect(MESSAGES['dispute.opened'](input(dispute, 'client'))!.body).toBe(
      'The worker opened a dispute on your contract: payment is withheld. No payout of the contract is made while it is open. Respond with your side and add evidence.\n\nContract:\n  "Build a Rust CLI"\nWorker:\n  "Carol"',
    );
    expect(MESSAGES['dispute.opened'](input(dispute, 'worker'))).toBeNull(); // the opener knows
    expect(MESSAGES['dispute.responded'](input(dispute, 'client'))).toBeNull();
    // The client accepted last: the worker is asked to answer, the client is not.
    expect(MESSAGES['dispute.outcome_accepted'](input(dispute, 'worker'))!.body).toContain(
      'The client accepts a split, 60% to the worker and the rest back to the client',
    );
    expect(MESSAGES['dispute.outcome_accepted'](input(dispute, 'client'))).toBeNull();
    expect(MESSAGES['dispute.resolved'](input(dispute, 'worker'))!.title).toBe('Dispute resolved: "Build a Rust CLI"');
    // The identity checks are the worker's to do; a contract no longer awaiting approval asks nothing.
    expect(MESSAGES['contract.pending_freelancer_kyc'](input(contract, 'client'))).toBeNull();
    expect(MESSAGES['contract.updated'](input(contract))).toBeNull();
  });
});

describe('the spec and the code', () => {
  it('list the same notifiable event types, each of the catalog', () => {
    const spec = loadSpec() as unknown as {
      components: { schemas: Record<string, { enum?: string[] }> };
      webhooks: Record<string, unknown>;
    };
    expect(spec.components.schemas.NotificationEventType!.enum).toEqual([...NOTIFIABLE_EVENT_TYPES]);
    for (const type of NOTIFIABLE_EVENT_TYPES) expect(Object.keys(spec.webhooks)).toContain(type);
  });

  it('let a channel take every notifiable type at once (the defaults, less one, were refused when the limit lagged the list)', () => {
    const schemas = (loadSpec() as unknown as { components: { schemas: Record<string, any> } }).components.schemas;
    expect(schemas.UpdateNotificationChannelRequest.properties.event_types.maxItems).toBe(NOTIFIABLE_EVENT_TYPES.length);
  });
});
