// A negotiation at `#/negotiations/{id}`: its status, who is expected to answer, every round with
// what changed from the one before, its contract once there is one, what the owner may do
// (agree, cancel, share contact details) and who did what.
import type { Me } from '../api.ts';
import { Activity } from '../components/Activity.tsx';
import { GigTitle } from '../components/GigTitle.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { statusLabel, when } from '../format.ts';
import { useNegotiation } from '../negotiations.ts';
import { roleIn, useDisplayName } from '../queries.ts';
import { href } from '../router.ts';
import { NegotiationActions } from './NegotiationActions.tsx';
import { Rounds } from './Rounds.tsx';

export function NegotiationPage({ id, me }: { id: string; me: Me }) {
  const negotiation = useNegotiation(id);
  if (negotiation.isPending || negotiation.isError)
    return (
      <>
        <PageTitle title="Negotiation">Negotiation</PageTitle>
        {negotiation.isPending ? (
          <Loading what="the negotiation" />
        ) : (
          <>
            <ErrorMessage error={negotiation.error} onRetry={() => void negotiation.refetch()} />
            <p>
              <a href={href.negotiations}>All negotiations</a>
            </p>
          </>
        )}
      </>
    );
  const n = negotiation.data;
  const role = roleIn(n, me);
  const otherRole = role === 'client' ? 'worker' : 'client';
  return (
    <>
      <p className="crumbs">
        <a href={href.negotiations}>Negotiations</a> /
      </p>
      <PageTitle title="Negotiation">
        <GigTitle gigId={n.gig_id} />
      </PageTitle>
      <p className="lead">
        <span className={`status status-${n.status}`}>{negotiationStatusLabel(n.status)}</span> You are the <strong>{role}</strong>; the{' '}
        {otherRole} is <Name userId={role === 'client' ? n.worker_user_id : n.client_user_id} />.{' '}
        <span data-testid="awaiting">{awaitingText(n.awaiting, role, n.status)}</span>
      </p>
      {n.contract_id && (
        <p className={n.status === 'agreed' ? 'ok' : undefined}>
          {n.status === 'agreed' && 'Agreed: nothing binds until both owners approve the contract. '}
          <a href={href.contract(n.contract_id)}>Open the contract made from this negotiation</a>
        </p>
      )}
      <p className="muted small">
        As of <Time iso={new Date(negotiation.dataUpdatedAt).toISOString()} format={when} />.{' '}
        <button type="button" className="secondary" disabled={negotiation.isFetching} onClick={() => void negotiation.refetch()}>
          {negotiation.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </p>
      <Rounds rounds={n.rounds} meRole={role} />
      <NegotiationActions negotiation={n} role={role} />
      <Activity resourceId={n.id} asOf={negotiation.dataUpdatedAt} me={me} />
    </>
  );
}

export const NEGOTIATION_STATUS_LABEL: Record<string, string> = { open: 'Open', agreed: 'Agreed', cancelled: 'Cancelled' };
export const negotiationStatusLabel = (status: string) => NEGOTIATION_STATUS_LABEL[status] ?? statusLabel(status);

/** Whose move it is, in words. */
export function awaitingText(awaiting: 'client' | 'worker' | null, role: 'client' | 'worker', status: string): string {
  if (status !== 'open') return '';
  if (awaiting === null) return 'Either side may propose the next terms.';
  return awaiting === role ? `Awaiting your side (the ${role}): agree or propose new terms.` : `Awaiting the ${awaiting}.`;
}

function Name({ userId }: { userId: string }) {
  const name = useDisplayName(userId);
  return <strong>{name.data ?? `user ${userId.slice(0, 8)}…`}</strong>;
}
