// MCP sessions, in the database so that any server process can serve any session
// (src/mcp/http.ts): what the client said at `initialize`, and the addresses at which a process
// waits for a client's message that may reach another process (the owner's answer to an
// approval's question, the cancellation of a request in flight).
import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { users } from './identity.ts';

/**
 * One MCP session: it belongs to the API key that opened it (an OAuth grant acts through an API key
 * of its own, so its sessions are that key's), and is counted against the key's owner. Ended
 * (closed_at) by the client's DELETE or by a newer session beyond the owner's cap; unused for 30
 * minutes, it has expired.
 */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    /** The Mcp-Session-Id: random, not time-ordered. */
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Always `api_key` (principal_id: the key's id): an OAuth grant's sessions are its own key's. */
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
    check('mcp_sessions_principal_kind_check', sql`${t.principalKind} = 'api_key'`),
  ],
);

/**
 * An address at which a process waits for a client's message, registered before the client can
 * send it (a response to the request that process sent, or the cancellation of a client request
 * it serves) and removed when the wait ends. A message that reaches another process fills
 * `message` (only if empty: the first one counts) until the waiting process takes the row; a
 * message for an address nobody registered is dropped. So the table holds no more than the
 * requests in flight. `address` names the request: `response:<id>` or `cancel:<id>`.
 */
export const mcpMessages = pgTable(
  'mcp_messages',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => mcpSessions.id, { onDelete: 'cascade' }),
    address: text('address').notNull(),
    /** Null while the process still waits. */
    message: jsonb('message'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.address] }), index('mcp_messages_created_at_idx').on(t.createdAt)],
);
