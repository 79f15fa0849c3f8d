// The hourly housekeeping job, run as pg-boss runs it: what it forgets (idempotency keys past 24 h,
// expired or revoked sessions, webhook delivery attempts past 30 days, read inbox messages past 90
// days, provider events past 30 days) and what it keeps.
import { describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { HOUSEKEEPING_QUEUE } from '../../src/job-system/queues.ts';
import { idempotencyKeys, notificationMessages, providerEvents, sessions, webhookDeliveries, webhookEndpoints } from '../../db/schema.ts';
import { idAt, newId } from '../../src/ids.ts';

const server = testFileServer();

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
const hoursAhead = (h: number) => new Date(Date.now() + h * 3_600_000);

describe('housekeeping', () => {
  it('forgets old idempotency keys, dead sessions, old delivery attempts, old read messages and old provider events; keeps the rest', async () => {
    const { userId } = await server.user('Housekept');
    const key = (name: string, createdAt: Date) => ({
      userId,
      key: name,
      requestHash: 'h',
      state: 'completed',
      responseStatus: 201,
      createdAt,
      lockedAt: createdAt,
    });
    await server.db.insert(idempotencyKeys).values([key('old', hoursAgo(25)), key('recent', hoursAgo(23))]);
    const session = (name: string, expiresAt: Date, revokedAt: Date | null) => ({
      id: newId(),
      tokenHash: name,
      userId,
      expiresAt,
      revokedAt,
    });
    await server.db
      .insert(sessions)
      .values([
        session('expired', hoursAgo(1), null),
        session('revoked', hoursAhead(24), hoursAgo(1)),
        session('live', hoursAhead(24), null),
      ]);
    const event = (id: string, receivedAt: Date) => ({ provider: 'stripe', eventId: id, type: 'account.updated', receivedAt });
    await server.db.insert(providerEvents).values([event('evt_old', hoursAgo(31 * 24)), event('evt_recent', hoursAgo(29 * 24))]);

    // Ids are UUIDv7, and age is read from them: a row "made" days ago has an id of that moment.
    const madeAt = (moment: Date) => idAt(moment).replace(/-8000-0{12}$/, `-8000-${newId().slice(-12)}`);
    const endpointId = newId();
    await server.db
      .insert(webhookEndpoints)
      .values({ id: endpointId, userId, url: 'https://hooks.example.com/x', description: '', eventTypes: null, secret: 'whsec_x' });
    const attempt = (id: string) => ({
      id,
      endpointId,
      eventId: newId(),
      eventType: 'gig.created',
      attempt: 1,
      succeeded: true,
      durationMs: 1,
    });
    const oldAttempt = madeAt(hoursAgo(31 * 24));
    const recentAttempt = madeAt(hoursAgo(29 * 24));
    await server.db.insert(webhookDeliveries).values([attempt(oldAttempt), attempt(recentAttempt)]);
    const message = (id: string, readAt: Date | null) => ({
      id,
      userId,
      eventId: newId(),
      type: 'gig.created',
      title: 't',
      body: 'b',
      link: 'l',
      readAt,
    });
    const oldRead = madeAt(hoursAgo(91 * 24));
    const oldUnread = madeAt(hoursAgo(92 * 24));
    const recentRead = madeAt(hoursAgo(89 * 24));
    await server.db
      .insert(notificationMessages)
      .values([message(oldRead, new Date()), message(oldUnread, null), message(recentRead, new Date())]);

    await server.runtime.jobs.boss.send(HOUSEKEEPING_QUEUE, {});
    await vi.waitFor(
      async () => {
        expect(await server.db.select().from(providerEvents).where(eq(providerEvents.eventId, 'evt_old'))).toHaveLength(0);
      },
      { timeout: 60_000, interval: 100 },
    );

    const keys = await server.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, userId));
    expect(keys.map((k) => k.key)).toEqual(['recent']);
    const left = await server.db.select().from(sessions).where(eq(sessions.userId, userId));
    expect(left.map((s) => s.tokenHash)).toEqual(['live']);
    const events = await server.db.select().from(providerEvents).where(eq(providerEvents.provider, 'stripe'));
    expect(events.map((e) => e.eventId)).toEqual(['evt_recent']);
    const attempts = await server.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
    expect(attempts.map((a) => a.id)).toEqual([recentAttempt]);
    const messages = await server.db.select().from(notificationMessages).where(eq(notificationMessages.userId, userId));
    expect(messages.map((m) => m.id).sort()).toEqual([oldUnread, recentRead].sort());
  });
});
