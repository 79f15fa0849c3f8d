// People, their sessions, keys and vouches.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, oneOf, updatedAt } from './columns.ts';
import { APPROVAL_POLICIES, WEBAUTHN_PURPOSES, WEBAUTHN_TRANSPORTS } from './column-values.ts';

/** Key/value settings the instances share (e.g. the generated session secret). */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

/** A person (an owner). Their API keys are their agents. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    displayName: text('display_name').notNull(),
    bio: text('bio').notNull().default(''),
    skills: text('skills').array().notNull().default(sql`'{}'::text[]`),
    portfolioWebsiteUrl: text('portfolio_website_url'),
    /** Private: shown to a negotiation counterpart only after this user shares it. */
    contactDetails: text('contact_details'),
    /** Private: where notification emails go; shown only in the owner's own profile. */
    email: text('email'),
    /** The storage key (src/storage/file-store.ts) of the uploaded resume; null when there is none. */
    resumeKey: text('resume_key'),
    githubId: bigint('github_id', { mode: 'number' }),
    githubLogin: text('github_login'),
    /** Whether a key's approval counts as this owner's (keys_may_approve) or only theirs, signed in (owner_confirms). */
    approvalPolicy: text('approval_policy', { enum: APPROVAL_POLICIES }).notNull().default('keys_may_approve'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** When the account was deleted: the row stays, anonymized, for what others keep (contracts, reviews). */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('users_github_id_key').on(t.githubId),
    check('users_approval_policy_check', oneOf(t.approvalPolicy, APPROVAL_POLICIES)),
  ],
);

/** Browser sessions; the cookie carries the token, the row only its SHA-256. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('sessions_token_hash_key').on(t.tokenHash), index('sessions_user_id_idx').on(t.userId)],
);

/** API keys: stored as a SHA-256 hash plus a display prefix; the secret is shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    hostedAgentId: text('hosted_agent_id'),
    /** False: this key's approval only asks its owner (as under owner_confirms), whatever the owner's policy. */
    mayApprove: boolean('may_approve').notNull().default(true),
    keyHash: text('key_hash').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** Set when this key was replaced by a rotation. */
    replacedById: uuid('replaced_by_id'),
    /** Set when the key stands for an OAuth client's grant (src/services/oauth-grants.ts): the grant, its client, what was granted. */
    oauthGrantId: text('oauth_grant_id'),
    oauthClientId: text('oauth_client_id'),
    scopes: text('scopes').array(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_user_id_idx').on(t.userId),
    uniqueIndex('api_keys_oauth_grant_id_key').on(t.oauthGrantId),
  ],
);

/** Permanent vouches between users (POST /api/vouches; read by the public profile and worker recommendations). */
export const vouches = pgTable(
  'vouches',
  {
    voucherUserId: uuid('voucher_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    vouchedUserId: uuid('vouched_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.voucherUserId, t.vouchedUserId] }),
    index('vouches_vouched_user_id_idx').on(t.vouchedUserId),
    check('vouches_not_self', sql`${t.voucherUserId} <> ${t.vouchedUserId}`),
  ],
);

/**
 * An owner's passkeys (WebAuthn credentials): when an owner has one, approving a contract in the
 * browser needs it. The public key and the signature counter are what verifying an assertion needs.
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential's id, base64url, as the authenticator names it. */
    credentialId: text('credential_id').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull(),
    transports: text('transports', { enum: WEBAUTHN_TRANSPORTS }).array().notNull().default(sql`'{}'::text[]`),
    name: text('name').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('passkeys_credential_id_key').on(t.credentialId), index('passkeys_user_idx').on(t.userId)],
);

/**
 * WebAuthn challenges handed out and not yet answered: one use each, for one user, for one purpose
 * (registering a passkey, or approving one contract's terms), until they expire.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    challenge: text('challenge').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: WEBAUTHN_PURPOSES }).notNull(),
    /** For an approval: the contract and the terms hash the owner was shown. */
    contractId: uuid('contract_id'),
    termsHash: text('terms_hash'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    check('webauthn_challenges_purpose_check', oneOf(t.purpose, WEBAUTHN_PURPOSES)),
    index('webauthn_challenges_expiry_idx').on(t.expiresAt),
  ],
);
