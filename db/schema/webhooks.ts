// Webhook endpoints (where a user's events are POSTed) and every delivery attempt to them.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { at, createdAt, updatedAt } from './columns.ts';
import { users } from './identity.ts';

/** A URL a user registered for their events; the secret signs every delivery (Standard Webhooks). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** The event types delivered; null: every type the user is in the audience of. */
    eventTypes: text('event_types').array(),
    /** `whsec_…`, kept in clear: signing needs it (like Stripe's and Svix's endpoint secrets). */
    secret: text('secret').notNull(),
    /** The secret before the last rotation, still signing beside the new one until `previous_secret_until`. */
    previousSecret: text('previous_secret'),
    previousSecretUntil: at('previous_secret_until'),
    disabledAt: at('disabled_at'),
    /** `gone` (the receiver answered 410), `failing` (every attempt failed for 5 days), `manual`. */
    disabledReason: text('disabled_reason'),
    /** The first failed attempt since the last success; null while deliveries succeed. */
    failingSince: at('failing_since'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhook_endpoints_user_id_idx').on(t.userId),
    // The disabled ones, counted by the metrics at each scrape (db/repositories/gauges.ts).
    index('webhook_endpoints_disabled_idx').on(t.disabledReason).where(sql`disabled_at is not null`),
  ],
);

/** One attempt to deliver one event (or a test message) to one endpoint. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /** The event's id (the webhook-id header); a test message has an id of its own, in no table. */
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** 1 for the first attempt of a message to this endpoint, counting retries and redeliveries. */
    attempt: integer('attempt').notNull(),
    succeeded: boolean('succeeded').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    /** The first 1 KiB of the response body. */
    responseExcerpt: text('response_excerpt'),
    error: text('error'),
    /** When the next automatic attempt is due; null when none follows. */
    nextRetryAt: at('next_retry_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_deliveries_event_idx').on(t.endpointId, t.eventId),
    index('webhook_deliveries_failed_idx').on(t.endpointId, t.createdAt).where(sql`not succeeded`),
  ],
);
