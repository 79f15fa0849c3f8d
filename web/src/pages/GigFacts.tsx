// A gig's pay in words, and what its client can do with its status (publish, pause, resume, close).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { money } from '../format.ts';
import { marketKeys, type Gig, type GigStatus } from '../market.ts';
import { keys } from '../queries.ts';

/** "$80.00 per hour", "$500.00 – $900.00 fixed price", "Bounty of $200.00", "Not stated". */
export function Compensation({ gig: g }: { gig: Gig }) {
  const { compensation_min_cents: min, compensation_max_cents: max, currency } = g;
  const range = min !== null && max !== null && min !== max ? `${money(min, currency)} – ${money(max, currency)}` : null;
  const one = max ?? min;
  const amount = range ?? (one !== null ? money(one, currency) : null);
  switch (g.compensation_type) {
    case 'hourly':
      if (g.rate_cents !== null) return <>{money(g.rate_cents, currency)} per hour</>;
      return <>{amount ? `${amount} per hour` : 'Hourly, rate not stated'}</>;
    case 'fixed':
      return <>{amount ? `${amount} fixed price` : 'Fixed price, not stated'}</>;
    case 'bounty':
      return <>{amount ? `Bounty of ${amount}` : 'Bounty, amount not stated'}</>;
    default:
      return <span className="muted">Not stated</span>;
  }
}

const MOVES: Record<GigStatus, { to: GigStatus; label: string }[]> = {
  draft: [{ to: 'open', label: 'Publish' }],
  open: [{ to: 'paused', label: 'Pause (take no applications)' }],
  paused: [{ to: 'open', label: 'Resume (take applications again)' }],
  closed: [],
};

export function GigStatusActions({ gig: g }: { gig: Gig }) {
  const queryClient = useQueryClient();
  const move = useMutation({
    mutationFn: (status: GigStatus) => unwrap(api.PATCH('/api/gigs/{id}', { params: { path: { id: g.id } }, body: { status } })),
    onSuccess: (gig) => {
      queryClient.setQueryData(marketKeys.gig(g.id), gig);
      void queryClient.invalidateQueries({ queryKey: marketKeys.gigs });
      void queryClient.invalidateQueries({ queryKey: keys.gig(g.id) });
    },
    onError: () => void queryClient.invalidateQueries({ queryKey: marketKeys.gig(g.id) }),
  });
  if (g.status === 'closed') return <p className="muted">This gig is closed: it can be neither reopened nor edited.</p>;
  return (
    <div className="row-actions">
      {MOVES[g.status].map((m) => (
        <button key={m.to} type="button" className="secondary" disabled={move.isPending} onClick={() => move.mutate(m.to)}>
          {m.label}
        </button>
      ))}
      <ConfirmButton
        label="Close gig…"
        question="Close this gig for good? A closed gig can be neither reopened nor edited."
        confirmLabel="Yes, close it"
        busy={move.isPending}
        onConfirm={() => move.mutate('closed')}
      />
      {move.isError && <ErrorMessage error={move.error} />}
    </div>
  );
}
