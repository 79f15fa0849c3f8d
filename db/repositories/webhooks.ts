// Webhook endpoints and their delivery attempts. Every function a user's request reaches takes that
// user's id, so a query cannot reach another user's endpoint; the delivery job, which acts for no
// caller, reads an endpoint by id alone (`endpointForDelivery`).
import { and, count, desc, eq, gte, inArray, isNull, lt, notExists, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { users, webhookDeliveries, webhookEndpoints } from '../schema.ts';
import type { Executor } from '../client.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type NewWebhookDelivery = typeof webhookDeliveries.$inferInsert;

/** Locks the user's row: endpoint creations of one user queue behind each other, so the cap holds. */
export async function lockUserForEndpoints(tx: Executor, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
}

export async function countEndpoints(db: Executor, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId));
  return row?.n ?? 0;
}

export async function insertEndpoint(
  db: Executor,
  userId: string,
  input: { id: string; url: string; description: string; eventTypes: string[] | null; secret: string },
): Promise<WebhookEndpointRow> {
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ ...input, userId })
    .returning();
  return row!;
}

export async function listEndpoints(db: Executor, userId: string, page: { limit: number; beforeId?: string }) {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), page.beforeId ? lt(webhookEndpoints.id, page.beforeId) : undefined))
    .orderBy(desc(webhookEndpoints.id))
    .limit(page.limit + 1);
}

export async function getEndpoint(db: Executor, userId: string, id: string, lock = false): Promise<WebhookEndpointRow | undefined> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export type EndpointChanges = Partial<
  Pick<
    WebhookEndpointRow,
    | 'url'
    | 'description'
    | 'eventTypes'
    | 'secret'
    | 'previousSecret'
    | 'previousSecretUntil'
    | 'disabledAt'
    | 'disabledReason'
    | 'failingSince'
  >
>;

export async function updateEndpoint(db: Executor, userId: string, id: string, changes: EndpointChanges) {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

export async function deleteEndpoint(db: Executor, userId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/** The enabled endpoints of these users (the relay's subscriber, for one batch of events). */
export async function enabledEndpointsOf(db: Executor, userIds: string[]): Promise<WebhookEndpointRow[]> {
  if (!userIds.length) return [];
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.userId, userIds), isNull(webhookEndpoints.disabledAt)))
    .orderBy(webhookEndpoints.id);
}

/** An endpoint by id alone (locked with `lock`): only for the delivery job, which acts for no caller. */
export async function endpointForDelivery(db: Executor, id: string, lock = false): Promise<WebhookEndpointRow | undefined> {
  const query = db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Endpoints by id alone, for a batch of delivery jobs. */
export async function endpointsForDelivery(db: Executor, ids: string[]): Promise<WebhookEndpointRow[]> {
  if (!ids.length) return [];
  return db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, ids));
}

/** Sets the delivery job's outcome on an endpoint (failing since, disabled), whoever owns it; returns the row after. */
export async function setEndpointHealth(
  db: Executor,
  id: string,
  changes: Pick<EndpointChanges, 'failingSince' | 'disabledAt' | 'disabledReason'>,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, id)).returning();
  return row;
}

/** A successful attempt, as `recordSuccesses` takes it. */
export interface SuccessfulAttempt {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
}

/**
 * Records successful attempts in one statement: each numbered (see insertDeliveries), its endpoint's
 * failing streak (if any) ended, and nothing recorded for an endpoint deleted meanwhile.
 */
export async function recordSuccesses(db: Executor, attempts: SuccessfulAttempt[]): Promise<void> {
  if (!attempts.length) return;
  const values = sql.join(
    attempts.map(
      (a) =>
        sql`(${a.id}::uuid, ${a.endpointId}::uuid, ${a.eventId}::uuid, ${a.eventType}::text, ${a.statusCode}::int, ${a.durationMs}::int, ${a.responseExcerpt}::text)`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    with v (id, endpoint_id, event_id, event_type, status_code, duration_ms, response_excerpt) as (values ${values}),
    cleared as (
      update webhook_endpoints e set failing_since = null
        from v where e.id = v.endpoint_id and e.failing_since is not null
    )
    insert into webhook_deliveries (id, endpoint_id, event_id, event_type, attempt, succeeded, status_code, duration_ms, response_excerpt)
    select v.id, v.endpoint_id, v.event_id, v.event_type,
           (select count(*)::int + 1 from webhook_deliveries prior where prior.endpoint_id = v.endpoint_id and prior.event_id = v.event_id),
           true, v.status_code, v.duration_ms, v.response_excerpt
      from v join webhook_endpoints e on e.id = v.endpoint_id`);
}

/**
 * Records attempts, numbered by the database: one more than the attempts already made to deliver
 * that message to that endpoint (a message's next attempt is enqueued only once its last is recorded;
 * a manual redelivery during a scheduled retry may share its number).
 */
export async function insertDeliveries(db: Executor, rows: Omit<NewWebhookDelivery, 'attempt'>[]): Promise<WebhookDeliveryRow[]> {
  if (!rows.length) return [];
  return db
    .insert(webhookDeliveries)
    .values(
      rows.map((row) => ({
        ...row,
        attempt: sql<number>`(select count(*)::int + 1 from webhook_deliveries prior
                                where prior.endpoint_id = ${row.endpointId}::uuid and prior.event_id = ${row.eventId}::uuid)`,
      })),
    )
    .returning();
}

export async function insertDelivery(db: Executor, row: NewWebhookDelivery): Promise<WebhookDeliveryRow> {
  const [inserted] = await db.insert(webhookDeliveries).values(row).returning();
  return inserted!;
}

/** Forgets delivery attempts older than the id given (housekeeping; ids are time-ordered). */
export async function deleteDeliveriesBefore(db: Executor, beforeId: string): Promise<void> {
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.id, beforeId));
}

/** The user's endpoint's attempts, newest first (limit + 1 rows, for paging). */
export async function listDeliveries(db: Executor, userId: string, endpointId: string, page: { limit: number; beforeId?: string }) {
  return db
    .select({ delivery: webhookDeliveries })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        eq(webhookEndpoints.userId, userId),
        eq(webhookDeliveries.endpointId, endpointId),
        page.beforeId ? lt(webhookDeliveries.id, page.beforeId) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(page.limit + 1)
    .then((rows) => rows.map((r) => r.delivery));
}

export async function getDelivery(db: Executor, userId: string, endpointId: string, id: string) {
  const [row] = await db
    .select({ delivery: webhookDeliveries })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookEndpoints.userId, userId), eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, id)))
    .limit(1);
  return row?.delivery;
}

/**
 * The events (not test messages) with a failed attempt to this endpoint at or after `since` and no
 * successful attempt at all, oldest first, at most `limit`.
 */
export async function failedEventIds(db: Executor, endpointId: string, since: Date, limit: number): Promise<string[]> {
  const ok = alias(webhookDeliveries, 'ok');
  const rows = await db
    .selectDistinct({ eventId: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.succeeded, false),
        gte(webhookDeliveries.createdAt, since),
        sql`${webhookDeliveries.eventType} <> 'webhook.test'`,
        notExists(
          db
            .select({ one: sql`1` })
            .from(ok)
            .where(and(eq(ok.endpointId, endpointId), eq(ok.eventId, webhookDeliveries.eventId), eq(ok.succeeded, true))),
        ),
      ),
    )
    .orderBy(webhookDeliveries.eventId)
    .limit(limit);
  return rows.map((r) => r.eventId);
}
