// The built-in notification channels (docs/architecture.md §6): each user's choice of event types
// per channel, the in-app inbox, and the approval reminders already sent.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, oneOf, updatedAt } from './columns.ts';
import { NOTIFICATION_CHANNELS } from './column-values.ts';
import { users } from './identity.ts';
import { contracts } from './contracts.ts';

/** A channel's event types, once its owner chose them; no row means the defaults. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: NOTIFICATION_CHANNELS }).notNull(),
    eventTypes: text('event_types').array().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.channel] }),
    check('notification_preferences_channel_check', oneOf(t.channel, NOTIFICATION_CHANNELS)),
  ],
);

/** The in-app inbox: one message per user and event (or per reminder, which has no event). */
export const notificationMessages = pgTable(
  'notification_messages',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The event it tells of; null for an approval reminder. */
    eventId: uuid('event_id'),
    /** The event type it tells of (`approval_reminder` for a reminder). */
    type: text('type').notNull(),
    title: text('title').notNull(),
    body: text('body').notNull(),
    link: text('link').notNull(),
    createdAt: createdAt(),
    readAt: at('read_at'),
  },
  (t) => [
    uniqueIndex('notification_messages_user_event_key').on(t.userId, t.eventId),
    index('notification_messages_user_idx').on(t.userId, t.id),
    index('notification_messages_unread_idx').on(t.userId, t.id).where(sql`read_at is null`),
  ],
);

/** Approval reminders sent: one per contract, revision, party and offset before the deadline. */
export const approvalRemindersSent = pgTable(
  'approval_reminders_sent',
  {
    contractId: uuid('contract_id')
      .notNull()
      .references(() => contracts.id, { onDelete: 'cascade' }),
    revisionCount: integer('revision_count').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The offset before the deadline this reminder is for (APPROVAL_REMINDERS). */
    offsetSeconds: integer('offset_seconds').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.contractId, t.revisionCount, t.userId, t.offsetSeconds] })],
);
