// Gigs (native and external) and applications to them.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, oneOf, updatedAt } from './columns.ts';
import { APPLICATION_ORIGINS, APPLICATION_STATUSES, COMPENSATION_TYPES, GIG_STATUSES } from './column-values.ts';
import { users } from './identity.ts';

/** Native and external gigs share this table (docs/architecture.md §8). */
export const gigs = pgTable(
  'gigs',
  {
    id: uuid('id').primaryKey(),
    /** The client; null for external gigs, which nobody on the platform owns. */
    clientUserId: uuid('client_user_id').references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    scope: text('scope').notNull().default(''),
    rateCents: integer('rate_cents'),
    compensationType: text('compensation_type', { enum: COMPENSATION_TYPES }).notNull().default('unknown'),
    compensationMinCents: integer('compensation_min_cents'),
    compensationMaxCents: integer('compensation_max_cents'),
    currency: text('currency').notNull().default('USD'),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    status: text('status', { enum: GIG_STATUSES }).notNull(),
    source: text('source').notNull().default('native'),
    externalId: text('external_id'),
    url: text('url'),
    postedAt: timestamp('posted_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('gigs_client_user_id_idx').on(t.clientUserId, t.id),
    index('gigs_status_id_idx').on(t.status, t.id),
    uniqueIndex('gigs_source_external_id_key').on(t.source, t.externalId),
    check('gigs_status_check', oneOf(t.status, GIG_STATUSES)),
    check('gigs_compensation_type_check', oneOf(t.compensationType, COMPENSATION_TYPES)),
    check('gigs_native_has_client', sql`${t.source} <> 'native' or ${t.clientUserId} is not null`),
  ],
);

/** A worker's application to a gig, or the client's direct invitation (origin = 'invitation'). */
export const applications = pgTable(
  'applications',
  {
    id: uuid('id').primaryKey(),
    gigId: uuid('gig_id')
      .notNull()
      .references(() => gigs.id, { onDelete: 'cascade' }),
    workerUserId: uuid('worker_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    origin: text('origin', { enum: APPLICATION_ORIGINS }).notNull(),
    status: text('status', { enum: APPLICATION_STATUSES }).notNull(),
    message: text('message').notNull().default(''),
    proposedRateCents: integer('proposed_rate_cents'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('applications_gig_worker_key').on(t.gigId, t.workerUserId),
    index('applications_worker_idx').on(t.workerUserId, t.id),
    check('applications_status_check', oneOf(t.status, APPLICATION_STATUSES)),
    check('applications_origin_check', oneOf(t.origin, APPLICATION_ORIGINS)),
  ],
);
