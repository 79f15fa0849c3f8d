// MCP sessions, in the database so that any server process can serve any session
// (src/mcp/http.ts): what the client said at `initialize`, and the client's messages addressed to a
// request that another process is serving (the owner's answer to an approval's question).
import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { users } from './identity.ts';

/**
 * One MCP session: it belongs to the credential that opened it (an API key, or an OAuth grant),
 * and is counted against that credential's owner. Ended (closed_at) by the client's DELETE or by a
 * newer session beyond the owner's cap; unused for 30 minutes, it has expired.
 */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    /** The Mcp-Session-Id: random, not time-ordered. */
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `api_key` (principal_id: the key's id) or `oauth` (principal_id: the grant's id). */
    principalKind: text('principal_kind').notNull(),
    principalId: text('principal_id').notNull(),
    /** The client's `initialize` params (protocolVersion, capabilities, clientInfo), replayed into each request's server. */
    initialize: jsonb('initialize').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [
    index('mcp_sessions_user_live_idx').on(t.userId, t.lastSeenAt).where(sql`closed_at is null`),
    index('mcp_sessions_last_seen_idx').on(t.lastSeenAt),
    check('mcp_sessions_principal_kind_check', sql`${t.principalKind} in ('api_key', 'oauth')`),
  ],
);

/**
 * A client's message for the process serving a request of the session (a response to the request
 * that process sent, or the cancellation of a request it serves), kept until that process takes it.
 * `address` names the request: `response:<id>` or `cancel:<id>`.
 */
export const mcpMessages = pgTable(
  'mcp_messages',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => mcpSessions.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    message: jsonb('message').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.address] }), index('mcp_messages_created_at_idx').on(t.createdAt)],
);
