// The OAuth authorization server's records (src/oauth/): what oidc-provider stores through its
// adapter (authorization codes, access and refresh tokens, grants, interactions, registered
// clients), one row per record, kept as the provider hands it over (`payload`) with the columns
// it looks records up by. In Postgres, so that any instance can finish a flow another began.
import { index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';

export const oauthRecords = pgTable(
  'oauth_records',
  {
    /** The provider's model name: AccessToken, RefreshToken, AuthorizationCode, Grant, Interaction, Client, ... */
    model: text('model').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').notNull(),
    /** The grant a token or code belongs to: revoking the grant deletes them all. */
    grantId: text('grant_id'),
    uid: text('uid'),
    userCode: text('user_code'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
    /** When the record was first stored: a client registered dynamically and never granted is forgotten after a day. */
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index('oauth_records_grant_id_idx').on(t.grantId),
    index('oauth_records_uid_idx').on(t.uid),
    index('oauth_records_expires_at_idx').on(t.expiresAt),
  ],
);
