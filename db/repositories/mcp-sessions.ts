// MCP sessions and the client messages kept for the process that expects them (src/mcp/sessions.ts).
// Liveness is judged by the database's clock (now()), the same for every process.
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { mcpMessages, mcpSessions } from '../schema.ts';
import type { Executor } from '../client.ts';

/** Told the session id of every message kept; each process serving a request of it looks. */
export const MCP_MESSAGES_CHANNEL = 'gm_mcp_message_kept';

export interface McpSessionRow {
  id: string;
  userId: string;
  principalKind: 'api_key' | 'oauth';
  principalId: string;
  initialize: Record<string, unknown>;
}

const minutesAgo = (minutes: number) => sql`now() - make_interval(mins => ${minutes})`;

/** Live: neither closed nor idle longer than `idleMinutes`. */
const live = (idleMinutes: number) => and(isNull(mcpSessions.closedAt), gt(mcpSessions.lastSeenAt, minutesAgo(idleMinutes)));

/**
 * Adds a session and ends the owner's least recently used live ones beyond `cap`. One owner's
 * sessions open one at a time (a lock on the owner), so that each opening counts the others'.
 */
export async function openMcpSession(db: Executor, row: McpSessionRow, limits: { cap: number; idleMinutes: number }): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`gigmarket:mcp-sessions:${row.userId}`}))`);
    await tx.insert(mcpSessions).values(row);
    const beyondCap = tx
      .select({ id: mcpSessions.id })
      .from(mcpSessions)
      .where(and(eq(mcpSessions.userId, row.userId), live(limits.idleMinutes)))
      .orderBy(desc(mcpSessions.lastSeenAt), desc(mcpSessions.createdAt))
      .offset(limits.cap);
    await tx.update(mcpSessions).set({ closedAt: sql`now()` }).where(inArray(mcpSessions.id, beyondCap));
  });
}

/** The live session `id` of this credential, marked as used now; undefined if none. */
export async function touchMcpSession(
  db: Executor,
  id: string,
  principal: { kind: string; id: string },
  idleMinutes: number,
): Promise<{ initialize: Record<string, unknown> } | undefined> {
  const [row] = await db
    .update(mcpSessions)
    .set({ lastSeenAt: sql`now()` })
    .where(
      and(
        eq(mcpSessions.id, id),
        eq(mcpSessions.principalKind, principal.kind),
        eq(mcpSessions.principalId, principal.id),
        live(idleMinutes),
      ),
    )
    .returning({ initialize: mcpSessions.initialize });
  return row;
}

export async function closeMcpSession(db: Executor, id: string): Promise<void> {
  await db
    .update(mcpSessions)
    .set({ closedAt: sql`now()` })
    .where(and(eq(mcpSessions.id, id), isNull(mcpSessions.closedAt)));
}

/** Keeps a message (a repeat of one already kept is dropped) and tells the listening processes at commit. */
export async function keepMcpMessage(db: Executor, sessionId: string, address: string, message: unknown): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(mcpMessages).values({ sessionId, address, message }).onConflictDoNothing();
    await tx.execute(sql`select pg_notify(${MCP_MESSAGES_CHANNEL}, ${sessionId})`);
  });
}

/** Removes and returns the session's messages for these addresses: one process takes each. */
export async function takeMcpMessages(
  db: Executor,
  sessionId: string,
  addresses: string[],
): Promise<{ address: string; message: unknown }[]> {
  return db
    .delete(mcpMessages)
    .where(and(eq(mcpMessages.sessionId, sessionId), inArray(mcpMessages.address, addresses)))
    .returning({ address: mcpMessages.address, message: mcpMessages.message });
}

/** Housekeeping: sessions closed or expired (their messages go with them), and messages nobody took. */
export async function deleteDeadMcpSessions(db: Executor, limits: { idleMinutes: number; messageMinutes: number }): Promise<void> {
  await db.delete(mcpSessions).where(or(isNotNull(mcpSessions.closedAt), lt(mcpSessions.lastSeenAt, minutesAgo(limits.idleMinutes))));
  await db.delete(mcpMessages).where(lt(mcpMessages.createdAt, minutesAgo(limits.messageMinutes)));
}
