// The outbox: a state change records its event with the same transaction it writes in (through
// src/services/events.ts, which makes the event's id and its audience).
import { and, arrayContains, asc, desc, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import { events } from '../schema.ts';
import type { Executor } from '../client.ts';

export type EventRow = typeof events.$inferSelect;

export interface NewEvent {
  id: string;
  /** `resource.action`, e.g. `gig.created`; listed under `webhooks:` in openapi.yaml. */
  type: string;
  resourceType: string;
  resourceId: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  actorHostedAgentId: string | null;
  /** The users this event concerns (parties, owners). */
  audienceUserIds: string[];
  /** The resource as the API shows it after the change. */
  data: unknown;
  /** The trace it was written in (src/tracing/), null when traces are off. */
  traceparent: string | null;
}

/** Where the relay hears that events were written (delivered when their transaction commits). */
export const EVENTS_WRITTEN_CHANNEL = 'gm_events_written';

export async function recordEvent(tx: Executor, event: NewEvent): Promise<EventRow> {
  const [row] = await tx
    .insert(events)
    .values({ ...event, audienceUserIds: [...new Set(event.audienceUserIds)] })
    .returning();
  // Postgres sends one notification per channel and payload per transaction, however many events.
  await tx.execute(sql`select pg_notify(${EVENTS_WRITTEN_CHANNEL}, '')`);
  return row!;
}

/**
 * Events not yet handed to their subscribers, oldest first, locked for this transaction; rows another
 * relay holds are skipped, so each event is dispatched by one process.
 */
export async function lockUndispatched(tx: Executor, limit: number): Promise<EventRow[]> {
  return tx
    .select()
    .from(events)
    .where(isNull(events.dispatchedAt))
    .orderBy(asc(events.id))
    .limit(limit)
    .for('update', { skipLocked: true });
}

export async function markDispatched(tx: Executor, ids: string[], at = new Date()): Promise<void> {
  if (ids.length) await tx.update(events).set({ dispatchedAt: at }).where(inArray(events.id, ids));
}

/** Events by id (webhook delivery jobs, which carry only ids). */
export async function getEventsByIds(db: Executor, ids: string[]): Promise<EventRow[]> {
  if (!ids.length) return [];
  return db.select().from(events).where(inArray(events.id, ids));
}

/** Events about one resource, oldest first (tests read them). */
export async function eventsForResource(db: Executor, resourceType: string, resourceId: string): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(and(eq(events.resourceType, resourceType), eq(events.resourceId, resourceId)))
    .orderBy(events.id);
}

/**
 * The events a user is in the audience of, newest first before `beforeId` (or from the newest), or
 * oldest first after `afterId`; `limit + 1` rows, for paging. Optionally of these types, or about
 * this resource.
 */
export async function listEventsForUser(
  db: Executor,
  userId: string,
  q: { limit: number; beforeId?: string; afterId?: string; types?: string[]; resourceId?: string },
): Promise<EventRow[]> {
  const forward = q.afterId !== undefined;
  return db
    .select()
    .from(events)
    .where(
      and(
        arrayContains(events.audienceUserIds, [userId]),
        q.types?.length ? inArray(events.type, q.types) : undefined,
        q.resourceId ? eq(events.resourceId, q.resourceId) : undefined,
        q.beforeId ? lt(events.id, q.beforeId) : undefined,
        q.afterId ? gt(events.id, q.afterId) : undefined,
      ),
    )
    .orderBy(forward ? asc(events.id) : desc(events.id))
    .limit(q.limit + 1);
}
