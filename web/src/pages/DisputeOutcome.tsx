// How a dispute ends: the advisory recommendation (a language model's, binding nobody), the
// outcome each party accepted, the viewer's own acceptance, and once both agree, the resolution
// and where its money went.
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorMessage, Time } from '../components/States.tsx';
import { outcomeText, type Acceptance, type Dispute, type Outcome, useDisputeChanged } from '../disputes.ts';
import { money, when } from '../format.ts';
import { useContract } from '../queries.ts';

export function DisputeOutcome({ dispute: d, role }: { dispute: Dispute; role: 'client' | 'worker' }) {
  if (d.status === 'open' || d.status === 'withdrawn') return null;
  return (
    <section aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">Outcome</h2>
      <Recommendation dispute={d} />
      <h3>Accepted so far</h3>
      <dl className="facts" data-testid="acceptances">
        <AcceptanceFact label={role === 'client' ? 'You (client)' : 'The client'} acceptance={d.acceptances.client} />
        <AcceptanceFact label={role === 'worker' ? 'You (worker)' : 'The worker'} acceptance={d.acceptances.worker} />
      </dl>
      {/* Keyed by the recommendation: a new one starts the form again from its outcome. */}
      {d.status === 'responded' && <Accept key={d.recommendation?.created_at ?? 'none'} dispute={d} mine={d.acceptances[role]} />}
      {d.resolution && <Resolution dispute={d} />}
    </section>
  );
}

function AcceptanceFact({ label, acceptance: a }: { label: string; acceptance: Acceptance | null }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {a ? (
          <>
            {outcomeText(a.outcome, a.worker_share_percent)}{' '}
            <span className="muted small">
              (<Time iso={a.accepted_at} format={when} />)
            </span>
          </>
        ) : (
          'Nothing yet'
        )}
      </dd>
    </div>
  );
}

function Recommendation({ dispute: d }: { dispute: Dispute }) {
  const changed = useDisputeChanged();
  const ask = useMutation({
    mutationFn: () => unwrap(api.POST('/api/disputes/{id}/recommendation', { params: { path: { id: d.id } } })),
    onSuccess: changed,
  });
  const r = d.recommendation;
  return (
    <div className="recommendation" data-testid="recommendation">
      <h3>Advisory recommendation</h3>
      {r ? (
        <>
          <p className="notice">{r.notice}</p>
          <p>
            <strong>{outcomeText(r.outcome, r.worker_share_percent)}</strong>, with {Math.round(r.confidence * 100)} % confidence.
          </p>
          <p className="notes">{r.reasoning}</p>
          <p className="muted small">
            By {r.model}, <Time iso={r.created_at} format={when} />.
          </p>
        </>
      ) : (
        <p className="muted">None yet. Either party may ask a language model for advice; it binds nobody.</p>
      )}
      {d.status === 'responded' && (
        <button type="button" className="secondary" disabled={ask.isPending} onClick={() => ask.mutate()}>
          {ask.isPending ? 'Asking… (up to half a minute)' : r ? 'Ask again' : 'Ask for a recommendation'}
        </button>
      )}
      {ask.isError && <ErrorMessage error={ask.error} />}
    </div>
  );
}

function Accept({ dispute: d, mine }: { dispute: Dispute; mine: Acceptance | null }) {
  const changed = useDisputeChanged();
  const suggested = mine ?? d.recommendation;
  const [outcome, setOutcome] = useState<Outcome>(suggested?.outcome ?? 'release');
  const [share, setShare] = useState(String(suggested?.worker_share_percent ?? 50));
  const shareId = useId();
  const accept = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/disputes/{id}/resolution', {
          params: { path: { id: d.id } },
          body: outcome === 'split' ? { outcome, worker_share_percent: Number(share) } : { outcome },
        }),
      ),
    onSuccess: changed,
  });
  return (
    <form
      className="accept"
      onSubmit={(e) => {
        e.preventDefault();
        accept.mutate();
      }}
    >
      <fieldset>
        <legend>{mine ? 'Change the outcome you accept' : 'Accept an outcome'}</legend>
        <p className="muted small">The dispute is resolved, and the money moves, when both parties have accepted the same outcome.</p>
        {(['release', 'refund', 'split'] as const).map((o) => (
          <label key={o} className="choice">
            <input type="radio" name="outcome" value={o} checked={outcome === o} onChange={() => setOutcome(o)} />{' '}
            {o === 'split' ? 'Split the money' : outcomeText(o, null)}
          </label>
        ))}
        {outcome === 'split' && (
          <div className="fields">
            <label htmlFor={shareId}>The worker's share, in percent (1 to 99)</label>
            <input id={shareId} type="number" min={1} max={99} step={1} required value={share} onChange={(e) => setShare(e.target.value)} />
          </div>
        )}
      </fieldset>
      <button type="submit" className="primary" disabled={accept.isPending}>
        {accept.isPending ? 'Accepting…' : 'Accept this outcome'}
      </button>
      {accept.isError && <ErrorMessage error={accept.error} />}
    </form>
  );
}

function Resolution({ dispute: d }: { dispute: Dispute }) {
  const contract = useContract(d.contract_id);
  const r = d.resolution!;
  const milestoneOf = (id: string) => contract.data?.milestones.find((m) => m.id === id);
  return (
    <div className="resolution" data-testid="resolution">
      <h3>Resolution</h3>
      <p className="ok">
        Both parties accepted: {outcomeText(r.outcome, r.worker_share_percent)} (<Time iso={r.resolved_at} format={when} />
        ).{' '}
        {r.settled_at ? (
          <>
            The money moved <Time iso={r.settled_at} format={when} />.
          </>
        ) : (
          'The money is being moved.'
        )}
      </p>
      <ul>
        {r.milestones.map((m) => {
          const milestone = milestoneOf(m.milestone_id);
          const currency = milestone?.currency ?? contract.data?.currency ?? 'USD';
          return (
            <li key={m.milestone_id}>
              {milestone ? `${milestone.position}. ${milestone.title}` : 'A milestone'}: {money(m.worker_cents, currency)} to the worker,{' '}
              {money(m.refund_cents, currency)} refunded to the client
            </li>
          );
        })}
      </ul>
    </div>
  );
}
