// What awaits an owner, most urgent first: the Overview's list, computed from the contract lists,
// the live disputes and the reviews still to write.
import type { Contract, Me } from './api.ts';
import { awaitedFrom, type Dispute } from './disputes.ts';
import { money } from './format.ts';
import { roleIn } from './queries.ts';
import { href } from './router.ts';

export type TaskKind = 'approve' | 'dispute' | 'kyc' | 'fund' | 'pay' | 'release' | 'review';

export interface Task {
  key: string;
  kind: TaskKind;
  /** The contract it concerns (the list shows its gig's title). */
  contractId: string;
  /** Where to do it. */
  link: string;
  /** What to do, in a few words. */
  what: string;
  /** The time it must be done by: an approval's deadline, a review period's end. */
  deadline?: string;
}

/** A completed contract the viewer may still review, until `deadline`. */
export interface ReviewDue {
  contractId: string;
  deadline: string;
}

const ORDER: Record<TaskKind, number> = { approve: 0, dispute: 1, kyc: 2, pay: 3, fund: 4, release: 5, review: 6 };

const onContract = (c: Contract, kind: TaskKind, key: string, what: string, deadline?: string): Task => ({
  key: `${kind}:${key}`,
  kind,
  contractId: c.id,
  link: href.contract(c.id),
  what,
  deadline,
});

export function tasksFor(
  me: Me,
  lists: { pending: Contract[]; kyc: Contract[]; active: Contract[]; disputes?: Dispute[]; reviews?: ReviewDue[] },
): Task[] {
  const tasks: Task[] = [];
  for (const c of lists.pending) {
    const mine = roleIn(c, me) === 'client' ? c.client_approved_at : c.worker_approved_at;
    if (mine) continue; // approved already: it waits for the other owner
    tasks.push(
      onContract(c, 'approve', c.id, `Review and approve the terms (revision ${c.revision_count})`, c.approval_deadline ?? undefined),
    );
  }
  for (const c of lists.kyc) {
    if (roleIn(c, me) === 'worker') tasks.push(onContract(c, 'kyc', c.id, 'Complete identity checks (KYC) to start'));
  }
  for (const c of lists.active) {
    if (roleIn(c, me) !== 'client') continue;
    for (const m of c.milestones) {
      const label = `milestone ${m.position}, “${m.title}” (${money(m.amount_cents, m.currency)})`;
      if (m.status === 'pending') tasks.push(onContract(c, 'fund', m.id, `Fund ${label}`));
      else if (m.status === 'funding') tasks.push(onContract(c, 'pay', m.id, `Finish paying ${label}`));
      else if (m.status === 'funded') tasks.push(onContract(c, 'release', m.id, `Release ${label} once the work is accepted`));
    }
  }
  for (const d of lists.disputes ?? []) {
    const what = awaitedFrom(d, me);
    if (what) tasks.push({ key: `dispute:${d.id}`, kind: 'dispute', contractId: d.contract_id, link: href.dispute(d.id), what });
  }
  for (const r of lists.reviews ?? []) {
    tasks.push({
      key: `review:${r.contractId}`,
      kind: 'review',
      contractId: r.contractId,
      link: href.contract(r.contractId),
      what: 'Review the other party (double-blind)',
      deadline: r.deadline,
    });
  }
  return tasks.sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || deadlineOf(a) - deadlineOf(b));
}

const deadlineOf = (t: Task) => (t.deadline ? new Date(t.deadline).getTime() : Number.POSITIVE_INFINITY);
