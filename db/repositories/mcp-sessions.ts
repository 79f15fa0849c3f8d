// MCP sessions and the addresses where a process waits for a client's message (src/mcp/sessions.ts).
// Liveness is judged by the database's clock (now()), the same for every process.
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { mcpMessages, mcpSessions } from '../schema.ts';
import type { Executor } from '../client.ts';

/** Told the session id of every message posted to a waiting address; each process waiting in it looks. */
export const MCP_MESSAGES_CHANNEL = 'gm_mcp_message_kept';

export interface McpSessionRow {
  id: string;
  userId: string;
  principalKind: 'api_key';
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

/**
 * Registers addresses at which a process waits. A row already there (a client that reused a
 * request id after a process ended mid-wait) starts empty again: an old message is not the answer.
 */
export async function expectMcpMessages(db: Executor, sessionId: string, addresses: string[]): Promise<void> {
  await db
    .insert(mcpMessages)
    .values(addresses.map((address) => ({ sessionId, address })))
    .onConflictDoUpdate({ target: [mcpMessages.sessionId, mcpMessages.address], set: { message: null, createdAt: sql`now()` } });
}

/**
 * Fills a registered address with the client's message, if it is still empty (a repeat is
 * dropped), and tells the listening processes at commit. A message nobody waits for is dropped.
 */
export async function postMcpMessage(db: Executor, sessionId: string, address: string, message: unknown): Promise<void> {
  await db.transaction(async (tx) => {
    const filled = await tx
      .update(mcpMessages)
      .set({ message })
      .where(and(eq(mcpMessages.sessionId, sessionId), eq(mcpMessages.address, address), isNull(mcpMessages.message)))
      .returning({ address: mcpMessages.address });
    if (filled.length > 0) await tx.execute(sql`select pg_notify(${MCP_MESSAGES_CHANNEL}, ${sessionId})`);
  });
}

/** Removes and returns the session's messages that came for these addresses: one process takes each. */
export async function takeMcpMessages(
  db: Executor,
  sessionId: string,
  addresses: string[],
): Promise<{ address: string; message: unknown }[]> {
  return db
    .delete(mcpMessages)
    .where(and(eq(mcpMessages.sessionId, sessionId), inArray(mcpMessages.address, addresses), isNotNull(mcpMessages.message)))
    .returning({ address: mcpMessages.address, message: mcpMessages.message });
}

/** The wait at these addresses is over: what comes for them from now on is dropped. */
export async function forgetMcpMessages(db: Executor, sessionId: string, addresses: string[]): Promise<void> {
  await db.delete(mcpMessages).where(and(eq(mcpMessages.sessionId, sessionId), inArray(mcpMessages.address, addresses)));
}

/** Housekeeping: sessions closed or expired (their addresses go with them), and addresses a process left (it ended mid-wait). */
export async function deleteDeadMcpSessions(db: Executor, limits: { idleMinutes: number; messageMinutes: number }): Promise<void> {
  await db.delete(mcpSessions).where(or(isNotNull(mcpSessions.closedAt), lt(mcpSessions.lastSeenAt, minutesAgo(limits.idleMinutes))));
  await db.delete(mcpMessages).where(lt(mcpMessages.createdAt, minutesAgo(limits.messageMinutes)));
}
