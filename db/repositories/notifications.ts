// The notification channels' rows: preferences, inbox messages and approval reminders sent. Reads
// and changes of a user's rows take that user's id, so one user cannot reach another's (404 above).
import { and, asc, count, desc, eq, gt, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import { approvalRemindersSent, contracts, gigs, notificationMessages, notificationPreferences, users } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { NotificationChannel } from '../schema/column-values.ts';

export type NotificationMessageRow = typeof notificationMessages.$inferSelect;
export type NewNotificationMessage = typeof notificationMessages.$inferInsert & { id: string };

/** The channels whose owner chose their event types (the rest use the defaults). */
export async function listPreferences(
  db: Executor,
  userIds: string[],
): Promise<{ userId: string; channel: NotificationChannel; eventTypes: string[] }[]> {
  if (!userIds.length) return [];
  return db
    .select({
      userId: notificationPreferences.userId,
      channel: notificationPreferences.channel,
      eventTypes: notificationPreferences.eventTypes,
    })
    .from(notificationPreferences)
    .where(inArray(notificationPreferences.userId, userIds));
}

export async function upsertPreference(db: Executor, userId: string, channel: NotificationChannel, eventTypes: string[]): Promise<void> {
  await db
    .insert(notificationPreferences)
    .values({ userId, channel, eventTypes })
    .onConflictDoUpdate({
      target: [notificationPreferences.userId, notificationPreferences.channel],
      set: { eventTypes, updatedAt: new Date() },
    });
}

/** The users' email addresses (null when none). */
export async function emailsOf(db: Executor, userIds: string[]): Promise<Map<string, { email: string | null; displayName: string }>> {
  if (!userIds.length) return new Map();
  const rows = await db
    .select({ id: users.id, email: users.email, displayName: users.displayName })
    .from(users)
    .where(inArray(users.id, userIds));
  return new Map(rows.map((r) => [r.id, { email: r.email, displayName: r.displayName }]));
}

/** Inserts the message unless the user already has one for its event; true when inserted. */
export async function insertMessage(db: Executor, message: NewNotificationMessage): Promise<boolean> {
  const rows = await db.insert(notificationMessages).values(message).onConflictDoNothing().returning({ id: notificationMessages.id });
  return rows.length > 0;
}

/** The user's messages, newest first before `beforeId`; `limit + 1` rows, for paging. */
export async function listMessages(
  db: Executor,
  userId: string,
  q: { limit: number; beforeId?: string; unread?: boolean },
): Promise<NotificationMessageRow[]> {
  return db
    .select()
    .from(notificationMessages)
    .where(
      and(
        eq(notificationMessages.userId, userId),
        q.unread ? isNull(notificationMessages.readAt) : undefined,
        q.beforeId ? lt(notificationMessages.id, q.beforeId) : undefined,
      ),
    )
    .orderBy(desc(notificationMessages.id))
    .limit(q.limit + 1);
}

export async function countUnread(db: Executor, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notificationMessages)
    .where(and(eq(notificationMessages.userId, userId), isNull(notificationMessages.readAt)));
  return Number(row?.n ?? 0);
}

/** Marks one of the user's messages read (a message already read keeps its time); undefined when the user has no such message. */
export async function markRead(db: Executor, userId: string, id: string, at = new Date()): Promise<NotificationMessageRow | undefined> {
  const [row] = await db
    .update(notificationMessages)
    .set({ readAt: sql`coalesce(${notificationMessages.readAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(notificationMessages.userId, userId), eq(notificationMessages.id, id)))
    .returning();
  return row;
}

/** Marks every unread message of the user read; returns how many. */
export async function markAllRead(db: Executor, userId: string, at = new Date()): Promise<number> {
  const rows = await db
    .update(notificationMessages)
    .set({ readAt: at })
    .where(and(eq(notificationMessages.userId, userId), isNull(notificationMessages.readAt)))
    .returning({ id: notificationMessages.id });
  return rows.length;
}

/** Contracts waiting for approval whose deadline is within `horizonMs` from now and not yet past. */
/** Forgets read inbox messages older than the id given (housekeeping; ids are time-ordered). Unread ones stay. */
export async function deleteReadMessagesBefore(db: Executor, beforeId: string): Promise<void> {
  await db.delete(notificationMessages).where(and(lt(notificationMessages.id, beforeId), sql`${notificationMessages.readAt} is not null`));
}

export async function contractsNearingDeadline(db: Executor, now: Date, horizonMs: number, limit: number) {
  return db
    .select()
    .from(contracts)
    .where(
      and(
        eq(contracts.status, 'pending_owner_approval'),
        gt(contracts.approvalDeadline, now),
        lte(contracts.approvalDeadline, new Date(now.getTime() + horizonMs)),
      ),
    )
    .orderBy(asc(contracts.approvalDeadline))
    .limit(limit);
}

/** Records reminders as sent; returns the offsets that were not sent before (those to send now). */
export async function claimReminders(
  db: Executor,
  r: { contractId: string; revisionCount: number; userId: string; offsetsSeconds: number[] },
): Promise<number[]> {
  if (!r.offsetsSeconds.length) return [];
  const rows = await db
    .insert(approvalRemindersSent)
    .values(
      r.offsetsSeconds.map((offsetSeconds) => ({
        contractId: r.contractId,
        revisionCount: r.revisionCount,
        userId: r.userId,
        offsetSeconds,
      })),
    )
    .onConflictDoNothing()
    .returning({ offsetSeconds: approvalRemindersSent.offsetSeconds });
  return rows.map((row) => row.offsetSeconds);
}

/** A gig's title (contracts are named by their gig), or undefined. */
export async function gigTitle(db: Executor, gigId: string): Promise<string | undefined> {
  const [row] = await db.select({ title: gigs.title }).from(gigs).where(eq(gigs.id, gigId)).limit(1);
  return row?.title;
}
