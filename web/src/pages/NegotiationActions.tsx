// What the owner may do with a negotiation in the page: agree to the other side's latest round
// (it becomes a contract both owners must still approve), cancel (confirmed), and share their
// contact details with the other party (2 credits, once). New rounds are their agents' to propose.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { negotiationKeys, type Negotiation } from '../negotiations.ts';
import { keys } from '../queries.ts';

function useNegotiationChanged(id: string) {
  const queryClient = useQueryClient();
  return (negotiation?: Negotiation) => {
    if (negotiation) queryClient.setQueryData(negotiationKeys.one(id), negotiation);
    else void queryClient.invalidateQueries({ queryKey: negotiationKeys.one(id) });
    void queryClient.invalidateQueries({ queryKey: negotiationKeys.all });
    void queryClient.invalidateQueries({ queryKey: negotiationKeys.events });
    void queryClient.invalidateQueries({ queryKey: keys.contracts });
    void queryClient.invalidateQueries({ queryKey: keys.unread });
  };
}

export function NegotiationActions({ negotiation: n, role }: { negotiation: Negotiation; role: 'client' | 'worker' }) {
  const latest = n.rounds.at(-1);
  // `awaiting` names the side expected to answer the latest round: null after a revise until new
  // terms are proposed (the API refuses to agree to the round the contract already holds).
  const canAgree = n.status === 'open' && latest !== undefined && n.awaiting === role;
  const canCancel = n.status === 'open';
  const shared = role === 'client' ? n.contact.client_shared : n.contact.worker_shared;
  const otherShared = role === 'client' ? n.contact.worker_shared : n.contact.client_shared;
  const canShare = n.status !== 'cancelled' && !shared;
  return (
    <section aria-labelledby="negotiation-actions-heading" className="actions">
      <h2 id="negotiation-actions-heading">Your decision</h2>
      {canAgree && latest && <Agree negotiation={n} round={latest.number} />}
      {n.status === 'open' && latest && n.awaiting !== role && (
        <p className="muted">
          {n.awaiting === null
            ? 'Sent back by a revise: new terms must be proposed before anyone can agree.'
            : "The latest round is your side's: the other side agrees to it or proposes new terms."}
        </p>
      )}
      <div className="contact">
        <h3>Contact details</h3>
        <p>
          {shared ? 'You shared your contact details.' : 'You have not shared your contact details.'}{' '}
          {otherShared ? (
            <>
              The other party's: <span data-testid="counterpart">{n.contact.counterpart ?? 'none on their profile'}</span>
            </>
          ) : (
            'The other party has not shared theirs.'
          )}
        </p>
        {canShare && <ShareContact negotiation={n} />}
      </div>
      {canCancel && (
        <div className="secondary-actions">
          <Cancel negotiation={n} />
        </div>
      )}
    </section>
  );
}

function Agree({ negotiation: n, round }: { negotiation: Negotiation; round: number }) {
  const changed = useNegotiationChanged(n.id);
  const agree = useMutation({
    mutationFn: () => unwrap(api.POST('/api/negotiations/{id}/agree', { params: { path: { id: n.id } } })),
    onSuccess: (result) => changed(result.negotiation),
    onError: () => changed(),
  });
  return (
    <div className="approve">
      <p>
        Agreeing to <strong>round {round}</strong> makes it a contract. Nothing binds yet: both owners then approve the contract.
      </p>
      <button type="button" className="primary" disabled={agree.isPending} onClick={() => agree.mutate()}>
        {agree.isPending ? 'Agreeing…' : `Agree to round ${round}`}
      </button>
      {agree.isError && <ErrorMessage error={agree.error} />}
    </div>
  );
}

function Cancel({ negotiation: n }: { negotiation: Negotiation }) {
  return (
    <ConfirmedAction
      negotiation={n}
      run={() => unwrap(api.POST('/api/negotiations/{id}/cancel', { params: { path: { id: n.id } } }))}
      label="Cancel negotiation…"
      question={
        n.contract_id ? 'Cancel this negotiation? Its contract is cancelled with it.' : 'Cancel this negotiation? It cannot be reopened.'
      }
      confirmLabel="Yes, cancel it"
    />
  );
}

function ShareContact({ negotiation: n }: { negotiation: Negotiation }) {
  return (
    <ConfirmedAction
      negotiation={n}
      run={() => unwrap(api.POST('/api/negotiations/{id}/contact-share', { params: { path: { id: n.id } } }))}
      label="Share my contact details…"
      question="Share the contact details of your profile with the other party? It costs 2 credits, once."
      confirmLabel="Yes, share them"
    />
  );
}

/** An action asked once more in the page (ConfirmButton), whose answer is the negotiation as it is now. */
function ConfirmedAction({
  negotiation: n,
  run,
  ...confirm
}: {
  negotiation: Negotiation;
  run: () => Promise<Negotiation>;
  label: string;
  question: string;
  confirmLabel: string;
}) {
  const changed = useNegotiationChanged(n.id);
  const action = useMutation({ mutationFn: run, onSuccess: (negotiation) => changed(negotiation) });
  return (
    <>
      <ConfirmButton {...confirm} busy={action.isPending} onConfirm={() => action.mutate()} />
      {action.isError && <ErrorMessage error={action.error} />}
    </>
  );
}
