// The database schema. drizzle-kit generates db/migrations/ from this file (`npm run db:generate`).
import { sql } from 'drizzle-orm';
import {
  bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

/** Key/value settings the instances share (e.g. the generated session secret). */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

/** A person (an owner). Their API keys are their agents. */
export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  displayName: text('display_name').notNull(),
  bio: text('bio').notNull().default(''),
  skills: text('skills').array().notNull().default(sql`'{}'::text[]`),
  portfolioWebsiteUrl: text('portfolio_website_url'),
  resumeKey: text('resume_key'),
  githubId: bigint('github_id', { mode: 'number' }),
  githubLogin: text('github_login'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('users_github_id_key').on(t.githubId),
]);

/** Browser sessions; the cookie carries the token, the row only its SHA-256. */
export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
}, (t) => [
  uniqueIndex('sessions_token_hash_key').on(t.tokenHash),
  index('sessions_user_id_idx').on(t.userId),
]);

/** API keys: stored as a SHA-256 hash plus a display prefix; the secret is shown once. */
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  hostedAgentId: text('hosted_agent_id'),
  keyHash: text('key_hash').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  /** Set when this key was replaced by a rotation. */
  replacedById: uuid('replaced_by_id'),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
  index('api_keys_user_id_idx').on(t.userId),
]);

/** Permanent vouches between users (written by a later issue; read by the public profile). */
export const vouches = pgTable('vouches', {
  voucherUserId: uuid('voucher_user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  vouchedUserId: uuid('vouched_user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
}, (t) => [
  primaryKey({ columns: [t.voucherUserId, t.vouchedUserId] }),
  index('vouches_vouched_user_id_idx').on(t.vouchedUserId),
  check('vouches_not_self', sql`${t.voucherUserId} <> ${t.vouchedUserId}`),
]);

/** Native and external gigs share this table (DESIGN §8). */
export const gigs = pgTable('gigs', {
  id: uuid('id').primaryKey(),
  /** The client; null for external gigs, which nobody on the platform owns. */
  clientUserId: uuid('client_user_id').references(() => users.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  scope: text('scope').notNull().default(''),
  rateCents: integer('rate_cents'),
  compensationType: text('compensation_type').notNull().default('unknown'),
  compensationMinCents: integer('compensation_min_cents'),
  compensationMaxCents: integer('compensation_max_cents'),
  currency: text('currency').notNull().default('USD'),
  tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
  status: text('status').notNull(),
  source: text('source').notNull().default('native'),
  externalId: text('external_id'),
  url: text('url'),
  postedAt: timestamp('posted_at', { withTimezone: true }).notNull().defaultNow(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('gigs_client_user_id_idx').on(t.clientUserId, t.id),
  index('gigs_status_id_idx').on(t.status, t.id),
  uniqueIndex('gigs_source_external_id_key').on(t.source, t.externalId),
  check('gigs_status_check', sql`${t.status} in ('draft', 'open', 'paused', 'closed')`),
  check('gigs_compensation_type_check', sql`${t.compensationType} in ('fixed', 'hourly', 'bounty', 'unknown')`),
  check('gigs_native_has_client', sql`${t.source} <> 'native' or ${t.clientUserId} is not null`),
]);

/** A worker's application to a gig, or the client's direct invitation (origin = 'invitation'). */
export const applications = pgTable('applications', {
  id: uuid('id').primaryKey(),
  gigId: uuid('gig_id').notNull().references(() => gigs.id, { onDelete: 'cascade' }),
  workerUserId: uuid('worker_user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  origin: text('origin').notNull(),
  status: text('status').notNull(),
  message: text('message').notNull().default(''),
  proposedRateCents: integer('proposed_rate_cents'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('applications_gig_worker_key').on(t.gigId, t.workerUserId),
  index('applications_worker_idx').on(t.workerUserId, t.id),
  check('applications_status_check', sql`${t.status} in ('submitted', 'shortlisted', 'rejected', 'withdrawn')`),
  check('applications_origin_check', sql`${t.origin} in ('application', 'invitation')`),
]);

/**
 * Negotiations between a gig's client and a shortlisted worker. The rounds, agreement and
 * contracts come with the contract lifecycle; the gig reference is RESTRICT so that a gig
 * under negotiation cannot be deleted (the database enforces it, not only the handler).
 */
export const negotiations = pgTable('negotiations', {
  id: uuid('id').primaryKey(),
  gigId: uuid('gig_id').notNull().references(() => gigs.id, { onDelete: 'restrict' }),
  clientUserId: uuid('client_user_id').notNull().references(() => users.id),
  workerUserId: uuid('worker_user_id').notNull().references(() => users.id),
  status: text('status').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index('negotiations_gig_idx').on(t.gigId),
]);

/** The outbox: every state change writes one row here in the same transaction (DESIGN §6). */
export const events = pgTable('events', {
  id: uuid('id').primaryKey(),
  type: text('type').notNull(),
  resourceType: text('resource_type').notNull(),
  resourceId: uuid('resource_id').notNull(),
  actorUserId: uuid('actor_user_id'),
  /** The users this event concerns: who may see it and whose endpoints receive it. */
  audienceUserIds: uuid('audience_user_ids').array().notNull(),
  data: jsonb('data').notNull(),
  createdAt: createdAt(),
}, (t) => [
  index('events_resource_idx').on(t.resourceType, t.resourceId),
  index('events_audience_idx').using('gin', t.audienceUserIds),
]);

/** Idempotency-Key records (Stripe semantics, 24 h). */
export const idempotencyKeys = pgTable('idempotency_keys', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  state: text('state').notNull(),
  responseStatus: integer('response_status'),
  responseBody: text('response_body'),
  responseContentType: text('response_content_type'),
  createdAt: createdAt(),
  lockedAt: timestamp('locked_at', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.userId, t.key] }),
  index('idempotency_keys_created_at_idx').on(t.createdAt),
  check('idempotency_keys_state_check', sql`${t.state} in ('in_flight', 'completed')`),
]);
