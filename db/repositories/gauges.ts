// What the Prometheus gauges read at scrape time (src/metrics/database-gauges.ts), each one statement
// on a partial index, so that a scrape does not grow with the history a database keeps: the outbox
// and the payouts count the rows waiting (a backlog makes them longer), the connections read
// pg_stat_activity.
import { sql } from 'drizzle-orm';
import { list, rowsOf } from '../sql.ts';
import type { Executor } from '../client.ts';

/** Events the relay has not handed on yet, and the age of the oldest (0 when none), by the database's clock. */
export async function outboxBacklog(db: Executor): Promise<{ events: number; oldestSeconds: number }> {
  // events_undispatched_idx: ids are UUIDv7, so the first by id is the oldest.
  const [row] = await rowsOf<{ events: number; oldest: number | null }>(
    db,
    sql`select (select count(*)::int from events where dispatched_at is null) as events,
               extract(epoch from now() - (select created_at from events where dispatched_at is null order by id limit 1))::float8 as oldest`,
  );
  return { events: row?.events ?? 0, oldestSeconds: Math.max(0, row?.oldest ?? 0) };
}

export interface PayoutFigures {
  /** Released, its payout due now or earlier, the contract not disputed: the payout job's work. */
  due: number;
  /** Released, its payout due later. */
  scheduled: number;
  /** Released, the contract disputed: the payout waits for the dispute's end. */
  held: number;
  /** How long the longest-due payout not made has been due, 0 when none. */
  overdueSeconds: number;
}

/** Milestones released and not paid yet (milestones_released_idx), by what their payout waits for. */
export async function payoutFigures(db: Executor): Promise<PayoutFigures> {
  const [row] = await rowsOf<{ due: number; scheduled: number; held: number; overdue: number | null }>(
    db,
    sql`select count(*) filter (where c.status <> 'disputed' and m.payout_due_at <= now())::int as due,
               count(*) filter (where c.status <> 'disputed' and (m.payout_due_at is null or m.payout_due_at > now()))::int as scheduled,
               count(*) filter (where c.status = 'disputed')::int as held,
               extract(epoch from now() - min(m.payout_due_at) filter (where c.status <> 'disputed' and m.payout_due_at <= now()))::float8 as overdue
          from milestones m join contracts c on c.id = m.contract_id
         where m.status = 'released'`,
  );
  return { due: row?.due ?? 0, scheduled: row?.scheduled ?? 0, held: row?.held ?? 0, overdueSeconds: Math.max(0, row?.overdue ?? 0) };
}

/** Disabled webhook endpoints by reason (webhook_endpoints_disabled_idx). */
export async function disabledEndpoints(db: Executor): Promise<{ reason: string; endpoints: number }[]> {
  return rowsOf(
    db,
    sql`select coalesce(disabled_reason, 'manual') as reason, count(*)::int as endpoints
          from webhook_endpoints where disabled_at is not null group by 1`,
  );
}

/** MCP sessions neither closed nor idle longer than `idleMinutes` (mcp_sessions_user_live_idx). */
export async function liveMcpSessions(db: Executor, idleMinutes: number): Promise<number> {
  const [row] = await rowsOf<{ sessions: number }>(
    db,
    sql`select count(*)::int as sessions from mcp_sessions
         where closed_at is null and last_seen_at > now() - make_interval(mins => ${idleMinutes})`,
  );
  return row?.sessions ?? 0;
}

/**
 * A server Postgres's connections of this database opened by gigmarket (every process: the pool
 * each process keeps, and pg-boss's), by application name and state, and those waiting for a lock.
 */
export async function serverConnections(
  db: Executor,
  applications: readonly string[],
): Promise<{ application: string; state: string; connections: number; waiting: number }[]> {
  return rowsOf(
    db,
    sql`select application_name as application, coalesce(state, 'unknown') as state, count(*)::int as connections,
               count(*) filter (where wait_event_type = 'Lock')::int as waiting
          from pg_stat_activity
         where datname = current_database() and application_name in (${list(applications)})
         group by 1, 2`,
  );
}
