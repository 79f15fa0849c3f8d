// Cross-cutting tables: the event outbox and Idempotency-Key records.
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { users } from './identity.ts';

/** The outbox: every state change writes one row here in the same transaction (docs/architecture.md §6). */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    type: text('type').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: uuid('resource_id').notNull(),
    actorUserId: uuid('actor_user_id'),
    /** The API key the actor used (null for a browser session or no actor), and its hosted agent. */
    actorApiKeyId: uuid('actor_api_key_id'),
    actorHostedAgentId: text('actor_hosted_agent_id'),
    /** The users this event concerns: who may see it and whose endpoints receive it. */
    audienceUserIds: uuid('audience_user_ids').array().notNull(),
    data: jsonb('data').notNull(),
    createdAt: createdAt(),
    /** When the relay handed the event to its subscribers (webhooks, notifications); null until then. */
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
    /** The W3C traceparent of the span that wrote it, while traces are on: its webhook deliveries continue that trace. */
    traceparent: text('traceparent'),
  },
  (t) => [
    index('events_resource_idx').on(t.resourceType, t.resourceId),
    index('events_audience_idx').using('gin', t.audienceUserIds),
    index('events_undispatched_idx').on(t.id).where(sql`dispatched_at is null`),
  ],
);

/**
 * Idempotency-Key records (Stripe semantics, 24 h): claimed by a request (`in_flight`, with the
 * holder's token and the time it took the key), the results of its outside calls as it gets them
 * (`phases`), and the response, recorded in the transaction of the operation's effects.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseContentType: text('response_content_type'),
    createdAt: createdAt(),
    lockedAt: timestamp('locked_at', { withTimezone: true }).notNull().defaultNow(),
    /** The attempt holding the key (a random token), until it ends or its lock times out. */
    lockedBy: uuid('locked_by'),
    /** Recovery points: each outside call's result, by phase name, so a retry does not repeat it. */
    phases: jsonb('phases').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.key] }),
    index('idempotency_keys_created_at_idx').on(t.createdAt),
    check('idempotency_keys_state_check', sql`${t.state} in ('in_flight', 'completed')`),
  ],
);

/**
 * The Ed25519 keys that sign approval receipts. One is active (retired_at null); rotating retires
 * it and adds another, and every key stays published (/.well-known/jwks.json) so that old receipts
 * keep verifying. The private key (PKCS#8 PEM) is a secret: it never leaves this table but to sign.
 */
export const receiptSigningKeys = pgTable(
  'receipt_signing_keys',
  {
    kid: text('kid').primaryKey(),
    publicJwk: jsonb('public_jwk').$type<{ kty: 'OKP'; crv: 'Ed25519'; x: string }>().notNull(),
    privateKeyPem: text('private_key_pem').notNull(),
    createdAt: createdAt(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  // At most one active key: concurrent first uses agree on one.
  (t) => [uniqueIndex('receipt_signing_keys_active_key').on(sql`(${t.retiredAt} is null)`).where(sql`${t.retiredAt} is null`)],
);
