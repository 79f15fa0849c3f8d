// What awaits an owner, most urgent first: the Overview's list, computed from the contract lists.
import type { Contract, Me } from './api.ts';
import { money } from './format.ts';
import { roleIn } from './queries.ts';

export type TaskKind = 'approve' | 'kyc' | 'fund' | 'pay' | 'release';

export interface Task {
  key: string;
  kind: TaskKind;
  contract: Contract;
  /** What to do, in a few words. */
  what: string;
  /** The approval deadline, for approvals. */
  deadline?: string;
}

const ORDER: Record<TaskKind, number> = { approve: 0, kyc: 1, pay: 2, fund: 3, release: 4 };

export function tasksFor(me: Me, lists: { pending: Contract[]; kyc: Contract[]; active: Contract[] }): Task[] {
  const tasks: Task[] = [];
  for (const c of lists.pending) {
    const role = roleIn(c, me);
    const mine = role === 'client' ? c.client_approved_at : c.worker_approved_at;
    if (mine) continue; // approved already: it waits for the other owner
    tasks.push({
      key: `approve:${c.id}`,
      kind: 'approve',
      contract: c,
      what: `Review and approve the terms (revision ${c.revision_count})`,
      deadline: c.approval_deadline ?? undefined,
    });
  }
  for (const c of lists.kyc) {
    if (roleIn(c, me) === 'worker')
      tasks.push({ key: `kyc:${c.id}`, kind: 'kyc', contract: c, what: 'Complete identity checks (KYC) to start' });
  }
  for (const c of lists.active) {
    if (roleIn(c, me) !== 'client') continue;
    for (const m of c.milestones) {
      const label = `milestone ${m.position}, “${m.title}” (${money(m.amount_cents, m.currency)})`;
      if (m.status === 'pending') tasks.push({ key: `fund:${m.id}`, kind: 'fund', contract: c, what: `Fund ${label}` });
      else if (m.status === 'funding') tasks.push({ key: `pay:${m.id}`, kind: 'pay', contract: c, what: `Finish paying ${label}` });
      else if (m.status === 'funded')
        tasks.push({ key: `release:${m.id}`, kind: 'release', contract: c, what: `Release ${label} once the work is accepted` });
    }
  }
  return tasks.sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || deadlineOf(a) - deadlineOf(b));
}

const deadlineOf = (t: Task) => (t.deadline ? new Date(t.deadline).getTime() : Number.POSITIVE_INFINITY);
