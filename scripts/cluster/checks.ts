// What the cluster check verifies once the load has stopped and the system has settled, from the
// outside (reads through the balancer, the webhook receiver's record) and in the database (read
// directly): every acknowledged write there, no effect twice, every event delivered, no job stuck.
import type postgres from 'postgres';
import type { FlowRecord, LoadContext } from './flows.ts';
import type { Receiver } from './receiver.ts';

export interface Finding {
  check: string;
  ok: boolean;
  detail: string;
}

/** How long past its expiry an active job may stay so: pg-boss's supervision looks once a minute. */
const SUPERVISE_SLACK_S = 90;

/** Event ids each endpoint should have received: its user's events written after it was created. */
export async function expectedDeliveries(sql: postgres.Sql, flows: FlowRecord[]): Promise<Map<string, string[]>> {
  const endpointIds = flows.flatMap((f) => f.endpoints.map((e) => e.id));
  if (endpointIds.length === 0) return new Map();
  const rows = await sql<{ user_id: string; event_id: string }[]>`
    select w.user_id::text, e.id::text as event_id
      from webhook_endpoints w
      join events e on w.user_id = any(e.audience_user_ids) and e.created_at > w.created_at
     where w.id = any(${endpointIds}::uuid[])`;
  const expected = new Map<string, string[]>();
  for (const r of rows) expected.set(r.user_id, [...(expected.get(r.user_id) ?? []), r.event_id]);
  return expected;
}

/** Events expected at an endpoint that the receiver has not had, in all. */
export function missingDeliveries(expected: Map<string, string[]>, receiver: Receiver): number {
  let missing = 0;
  for (const [user, ids] of expected) for (const id of ids) if (!receiver.received.get(user)?.has(id)) missing++;
  return missing;
}

/** Released milestones not yet paid (their payout job runs PAYOUT_DAY_SECONDS after the release). */
export async function unpaid(sql: postgres.Sql, flows: FlowRecord[]): Promise<number> {
  const ids = flows.flatMap((f) => f.milestones.filter((m) => m.released).map((m) => m.id));
  if (ids.length === 0) return 0;
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from milestones where id = any(${ids}::uuid[]) and status <> 'paid'`;
  return row!.n;
}

export async function undispatched(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from events where dispatched_at is null`;
  return row!.n;
}

/** Jobs still active that started before `since`: those the killed instance held stay so until their expiry, then are retried. */
export async function heldSince(sql: postgres.Sql, since: Date): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pgboss.job where state = 'active' and started_on < ${since}`;
  return row!.n;
}

/** Every 2xx create answers 200 to its owner afterwards, through the balancer. */
export async function acknowledgedWrites(ctx: LoadContext, flows: FlowRecord[]): Promise<Finding> {
  const created = flows.flatMap((f) => f.created);
  const lost: string[] = [];
  for (let i = 0; i < created.length; i += 16) {
    await Promise.all(
      created.slice(i, i + 16).map(async (c) => {
        const res = await ctx.traffic.fetch(`${ctx.base}${c.path}`, { headers: { authorization: `Bearer ${c.owner.apiKey}` } });
        await res.body?.cancel();
        if (res.status !== 200) lost.push(`${c.path}: ${res.status}`);
      }),
    );
  }
  return {
    check: 'no acknowledged write lost',
    ok: lost.length === 0,
    detail: `${created.length} creates answered 2xx, ${created.length - lost.length} read back${lost.length ? `; lost: ${lost.slice(0, 5).join(', ')}` : ''}`,
  };
}

/** Each acknowledged fund, release and payout happened once: one event of each per milestone, distinct payments and transfers. */
export async function moneyOnce(sql: postgres.Sql, flows: FlowRecord[]): Promise<Finding> {
  const milestones = flows.flatMap((f) => f.milestones);
  const ids = milestones.map((m) => m.id);
  const rows = ids.length
    ? await sql<
        {
          id: string;
          status: string;
          payment_id: string | null;
          transfer_id: string | null;
          funded: number;
          released: number;
          paid: number;
        }[]
      >`
        select m.id::text, m.status, m.payment_id, m.transfer_id,
               count(*) filter (where e.type = 'milestone.funded')::int as funded,
               count(*) filter (where e.type = 'milestone.released')::int as released,
               count(*) filter (where e.type = 'milestone.paid')::int as paid
          from milestones m left join events e on e.resource_type = 'milestone' and e.resource_id = m.id
         where m.id = any(${ids}::uuid[])
         group by m.id`
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const wrong: string[] = [];
  for (const m of milestones) {
    const r = byId.get(m.id);
    if (!r) wrong.push(`${m.id}: missing`);
    else if (r.funded > 1 || r.released > 1 || r.paid > 1)
      wrong.push(`${m.id}: funded ${r.funded}, released ${r.released}, paid ${r.paid} times`);
    else if (m.funded && r.funded !== 1) wrong.push(`${m.id}: acknowledged funded, ${r.funded} milestone.funded`);
    else if (m.released && (r.released !== 1 || r.paid !== 1 || r.status !== 'paid'))
      wrong.push(`${m.id}: released, then ${r.status} (paid ${r.paid})`);
  }
  const payments = rows.filter((r) => r.payment_id).map((r) => r.payment_id);
  const transfers = rows.filter((r) => r.transfer_id).map((r) => r.transfer_id);
  if (new Set(payments).size !== payments.length) wrong.push('a payment id on two milestones');
  if (new Set(transfers).size !== transfers.length) wrong.push('a transfer id on two milestones');
  const [provider] = await sql<{ events: number; distinct_ids: number }[]>`
    select count(*)::int as events, count(distinct event_id)::int as distinct_ids from provider_events`;
  const paidByPage = milestones.filter((m) => m.funded && m.amountCents > 0).length;
  return {
    check: 'every milestone funded and paid once',
    ok: wrong.length === 0,
    detail:
      `${milestones.filter((m) => m.funded).length} funded (${paidByPage} through the sandbox's pay page), ` +
      `${milestones.filter((m) => m.released).length} released and paid, each with one event of each; ` +
      `${payments.length} payments and ${transfers.length} transfers, all distinct; the provider's ${provider!.events} events applied once each` +
      (wrong.length ? `; wrong: ${wrong.slice(0, 5).join('; ')}` : ''),
  };
}

/** Each client's ledger: this month's grant once, the shortlist's deduction once, the agent's deduction once, and a balance that adds up. */
export async function creditsOnce(sql: postgres.Sql, flows: FlowRecord[]): Promise<Finding> {
  const clients = flows.filter((f) => f.done).map((f) => f.client.userId);
  const rows = clients.length
    ? await sql<{ user_id: string; grants: number; deductions: number; repeated_refs: number; balance: number }[]>`
        select t.user_id::text,
               count(*) filter (where t.reason = 'monthly_grant')::int as grants,
               count(*) filter (where t.reason = 'match_deduction')::int as deductions,
               (count(t.reference_id) - count(distinct (t.reason, t.reference_id)))::int as repeated_refs,
               (select coalesce(sum(ce.amount), 0)::int from credit_entries ce join credit_accounts ca on ca.id = ce.account_id where ca.user_id = t.user_id) as balance
          from credit_transactions t
         where t.user_id = any(${clients}::uuid[])
         group by t.user_id`
    : [];
  const wrong = rows.filter((r) => r.grants !== 1 || r.deductions !== 2 || r.repeated_refs !== 0 || r.balance !== 18);
  return {
    check: 'every credit deduction once',
    ok: wrong.length === 0 && rows.length === clients.length,
    detail:
      `${rows.length} clients: one monthly grant (20), the shortlist's and the agent's deduction once each, balance 18` +
      (wrong.length ? `; wrong: ${JSON.stringify(wrong.slice(0, 3))}` : ''),
  };
}

export function webhooksOnce(expected: Map<string, string[]>, receiver: Receiver): Finding {
  const events = [...expected.values()].reduce((n, ids) => n + ids.length, 0);
  const missing = missingDeliveries(expected, receiver);
  let repeats = 0;
  for (const user of receiver.received.values()) for (const r of user.values()) repeats += r.times - 1;
  return {
    check: 'every webhook event delivered, none under another id',
    ok: missing === 0 && receiver.conflicts.length === 0,
    detail:
      `${events} events due to ${expected.size} endpoints: ${events - missing} received (${repeats} deliveries again, as at-least-once allows), ` +
      `${missing} missing, ${receiver.conflicts.length} webhook-ids with two events` +
      (receiver.conflicts.length ? `: ${receiver.conflicts.slice(0, 3).join('; ')}` : ''),
  };
}

/** Jobs active past their expiry (and pg-boss's next look), or due and never taken. */
export async function jobsNotStuck(sql: postgres.Sql): Promise<Finding> {
  const stuck = await sql<{ name: string; state: string; n: number }[]>`
    select name, state::text, count(*)::int as n from pgboss.job
     where (state = 'active' and started_on < now() - make_interval(secs => expire_seconds + ${SUPERVISE_SLACK_S}))
        or (state in ('created', 'retry') and start_after < now() - make_interval(secs => ${SUPERVISE_SLACK_S}))
     group by name, state`;
  const [counts] = await sql<{ completed: number; retried: number }[]>`
    select count(*) filter (where state = 'completed')::int as completed, count(*) filter (where retry_count > 0)::int as retried from pgboss.job`;
  return {
    check: 'no job stuck past its expiry',
    ok: stuck.length === 0,
    detail: `${counts!.completed} jobs completed, ${counts!.retried} of them after a retry; stuck: ${stuck.length ? JSON.stringify(stuck) : 'none'}`,
  };
}
