// Disputes as the dashboard reads them: the types (by path, from the spec), reasons and outcomes in
// words, the viewer's side, and what a dispute awaits from the viewer (the Overview's tasks).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { allPages, api, unwrap, type Me, type Ok } from './api.ts';
import { keys } from './queries.ts';

export type Dispute = Ok<'/api/disputes/{id}', 'get'>;
export type DisputeStatus = Dispute['status'];
export type DisputeReason = Dispute['reason'];
export type Evidence = NonNullable<Dispute['evidence']>[number];
export type Acceptance = NonNullable<Dispute['acceptances']['client']>;
export type Outcome = Acceptance['outcome'];

export const disputeKeys = {
  all: ['disputes'] as const,
  list: (status: string) => ['disputes', 'list', status] as const,
  ofContract: (contractId: string) => ['disputes', 'contract', contractId] as const,
  live: ['disputes', 'live'] as const,
  one: (id: string) => ['disputes', 'one', id] as const,
};

export const DISPUTE_STATUSES: DisputeStatus[] = ['open', 'responded', 'resolved', 'withdrawn'];

export const DISPUTE_STATUS_LABEL: Record<DisputeStatus, string> = {
  open: 'Open, awaiting a response',
  responded: 'Responded',
  resolved: 'Resolved',
  withdrawn: 'Withdrawn',
};

export const REASON_LABEL: Record<DisputeReason, string> = {
  work_not_delivered: 'Work not delivered',
  work_not_as_agreed: 'Work not as agreed',
  payment_withheld: 'Payment withheld',
  scope_disagreement: 'Disagreement over the scope',
  other: 'Other',
};

/** "Release the money to the worker", "Refund the client", "Split: 60 % to the worker, the rest refunded". */
export function outcomeText(outcome: Outcome, workerSharePercent: number | null): string {
  if (outcome === 'release') return 'Release the money to the worker';
  if (outcome === 'refund') return 'Refund the client';
  return `Split: ${workerSharePercent ?? '?'} % to the worker, the rest refunded to the client`;
}

/** The viewer's side of the dispute's contract. */
export function viewerRole(d: Pick<Dispute, 'opener_user_id' | 'opener_role'>, me: Pick<Me, 'user_id'>): 'client' | 'worker' {
  const other = d.opener_role === 'client' ? 'worker' : 'client';
  return d.opener_user_id === me.user_id ? d.opener_role : other;
}

const sameOutcome = (a: Acceptance | null, b: Acceptance | null) =>
  Boolean(a && b && a.outcome === b.outcome && a.worker_share_percent === b.worker_share_percent);

/** What the dispute awaits from the viewer, in a few words; null when nothing. */
export function awaitedFrom(d: Dispute, me: Pick<Me, 'user_id'>): string | null {
  const role = viewerRole(d, me);
  if (d.status === 'open') return d.opener_user_id === me.user_id ? null : 'Respond to the dispute the other party opened';
  if (d.status !== 'responded') return null;
  const mine = d.acceptances[role];
  const theirs = d.acceptances[role === 'client' ? 'worker' : 'client'];
  if (theirs && !sameOutcome(mine, theirs))
    return `The other party accepted “${outcomeText(theirs.outcome, theirs.worker_share_percent)}”: accept it or propose another outcome`;
  if (!mine) return 'Accept an outcome (ask for an advisory recommendation if it helps)';
  return null;
}

/** The viewer's disputes still open or responded (the Overview's). */
export function useLiveDisputes() {
  return useQuery({
    queryKey: disputeKeys.live,
    queryFn: async () => {
      const [open, responded] = await Promise.all(
        (['open', 'responded'] as const).map((status) =>
          allPages((cursor) => unwrap(api.GET('/api/disputes', { params: { query: { status, limit: 100, cursor } } }))),
        ),
      );
      return [...open!, ...responded!];
    },
  });
}

/** After a change: the dispute, its lists, the contracts (held or released) and the unread count. */
export function useDisputeChanged() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: disputeKeys.all });
    void queryClient.invalidateQueries({ queryKey: keys.contracts });
    void queryClient.invalidateQueries({ queryKey: keys.unread });
  };
}

export function useDispute(id: string) {
  return useQuery({
    queryKey: disputeKeys.one(id),
    queryFn: () => unwrap(api.GET('/api/disputes/{id}', { params: { path: { id }, query: { evidence: 1 } } })),
  });
}

export function useDisputesOfContract(contractId: string) {
  return useQuery({
    queryKey: disputeKeys.ofContract(contractId),
    queryFn: async () => (await unwrap(api.GET('/api/disputes', { params: { query: { contract_id: contractId, limit: 100 } } }))).data,
  });
}

/** "12 KB", "1.4 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
