// /mcp's session store (src/mcp/sessions.ts) on the database: the rows, and the channel on which
// a process hears that a client's message came for an address where it may be waiting.
import type { Database } from '../../db/client.ts';
import { listen } from '../../db/listen.ts';
import {
  closeMcpSession,
  deleteDeadMcpSessions,
  expectMcpMessages,
  forgetMcpMessages,
  MCP_MESSAGES_CHANNEL,
  openMcpSession,
  postMcpMessage,
  takeMcpMessages,
  touchMcpSession,
} from '../../db/repositories/mcp-sessions.ts';
import type { Executor } from '../../db/client.ts';
import { IDLE_MINUTES, MESSAGE_KEEP_MINUTES, type McpSessionStore, SESSIONS_PER_OWNER } from '../mcp/sessions.ts';

/** A session id is a UUID the server made; any other header value names no session. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function mcpSessionStore(database: Database): McpSessionStore {
  const { db } = database;
  return {
    async open(id, owner, initialize) {
      const row = { id, userId: owner.userId, principalKind: owner.kind, principalId: owner.id, initialize };
      await openMcpSession(db, row, { cap: SESSIONS_PER_OWNER, idleMinutes: IDLE_MINUTES });
    },
    async resume(id, owner) {
      if (!UUID.test(id)) return undefined;
      const row = await touchMcpSession(db, id, owner, IDLE_MINUTES);
      return row && { id, initialize: row.initialize };
    },
    close: (id) => closeMcpSession(db, id),
    expect: (sessionId, addresses) => expectMcpMessages(db, sessionId, addresses),
    post: (sessionId, { address, message }) => postMcpMessage(db, sessionId, address, message),
    take: (sessionId, addresses) => takeMcpMessages(db, sessionId, addresses),
    forget: (sessionId, addresses) => forgetMcpMessages(db, sessionId, addresses),
    listen: (handlers) => listen(database, MCP_MESSAGES_CHANNEL, { onNotify: handlers.onPosted, onLive: handlers.onLive }, 'gigmarket-mcp'),
  };
}

/** Housekeeping: MCP sessions that can no longer be used, and addresses whose process ended mid-wait. */
export function deleteDeadMcpState(db: Executor): Promise<void> {
  return deleteDeadMcpSessions(db, { idleMinutes: IDLE_MINUTES, messageMinutes: MESSAGE_KEEP_MINUTES });
}
