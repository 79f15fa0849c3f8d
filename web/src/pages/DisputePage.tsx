// A dispute at `#/disputes/{id}`: what was disputed and why, the response, the evidence, the
// advisory recommendation and the outcome each party accepted; what the viewer can do now.
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import { Activity } from '../components/Activity.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { GigOfContract } from '../components/GigTitle.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { awaitedFrom, DISPUTE_STATUS_LABEL, REASON_LABEL, useDispute, useDisputeChanged, viewerRole, type Dispute } from '../disputes.ts';
import { day, money, statusLabel, when } from '../format.ts';
import { useContract } from '../queries.ts';
import '../disputes.css';
import { href } from '../router.ts';
import { DisputeEvidence } from './DisputeEvidence.tsx';
import { DisputeOutcome } from './DisputeOutcome.tsx';

export function DisputePage({ id, me }: { id: string; me: Me }) {
  const dispute = useDispute(id);
  if (!dispute.data)
    return (
      <>
        <PageTitle title="Dispute">Dispute</PageTitle>
        {dispute.isPending && <Loading what="the dispute" />}
        {dispute.isError && <ErrorMessage error={dispute.error} onRetry={() => void dispute.refetch()} />}
        <p>
          <a href={href.disputes}>All disputes</a>
        </p>
      </>
    );
  const d = dispute.data;
  const role = viewerRole(d, me);
  const awaited = awaitedFrom(d, me);
  const live = d.status === 'open' || d.status === 'responded';
  return (
    <>
      <p className="crumbs">
        <a href={href.disputes}>Disputes</a> /
      </p>
      <PageTitle title="Dispute">
        Dispute over <GigOfContract contractId={d.contract_id} />
      </PageTitle>
      <p className="lead">
        <span className={`status status-dispute-${d.status}`}>{DISPUTE_STATUS_LABEL[d.status]}</span>{' '}
        {d.opener_user_id === me.user_id ? 'You opened it' : `The ${d.opener_role} opened it`} on <Time iso={d.created_at} format={when} />.
        You are the <strong>{role}</strong>. <a href={href.contract(d.contract_id)}>The contract</a>
      </p>
      {awaited && <p className="notice">Awaits you: {awaited}.</p>}
      <section aria-labelledby="claim-heading">
        <h2 id="claim-heading">The claim</h2>
        <dl className="facts">
          <div>
            <dt>Reason</dt>
            <dd>{REASON_LABEL[d.reason]}</dd>
          </div>
        </dl>
        <p className="notes">{d.description}</p>
        <DisputedMilestones dispute={d} />
      </section>
      <Response dispute={d} me={me} />
      <DisputeEvidence dispute={d} me={me} />
      <DisputeOutcome dispute={d} role={role} />
      {live && d.opener_user_id === me.user_id && <Withdraw dispute={d} />}
      <Activity resourceId={d.id} asOf={dispute.dataUpdatedAt} me={me} />
    </>
  );
}

function DisputedMilestones({ dispute: d }: { dispute: Dispute }) {
  const contract = useContract(d.contract_id);
  if (contract.isError) return <ErrorMessage error={contract.error} onRetry={() => void contract.refetch()} />;
  const milestones = contract.data?.milestones.filter((m) => d.milestone_ids.includes(m.id));
  if (!milestones) return <Loading what="the milestones" />;
  return (
    <>
      <h3>Milestones in dispute</h3>
      <ul data-testid="disputed-milestones">
        {milestones.map((m) => (
          <li key={m.id}>
            {m.position}. {m.title}: {money(m.amount_cents, m.currency)} ({statusLabel(m.status).toLowerCase()}
            {m.due_date ? `, due ${day(m.due_date)}` : ''})
          </li>
        ))}
      </ul>
    </>
  );
}

function Response({ dispute: d, me }: { dispute: Dispute; me: Me }) {
  const changed = useDisputeChanged();
  const [text, setText] = useState('');
  const textId = useId();
  const respond = useMutation({
    mutationFn: () => unwrap(api.POST('/api/disputes/{id}/response', { params: { path: { id: d.id } }, body: { text: text.trim() } })),
    onSuccess: () => {
      setText('');
      changed();
    },
  });
  const canRespond = d.status === 'open' && d.opener_user_id !== me.user_id;
  return (
    <section aria-labelledby="response-heading">
      <h2 id="response-heading">Response</h2>
      {d.response !== null && (
        <>
          <p className="notes" data-testid="dispute-response">
            {d.response}
          </p>
          {d.responded_at && (
            <p className="muted small">
              Responded <Time iso={d.responded_at} format={when} />
            </p>
          )}
        </>
      )}
      {d.response === null && !canRespond && <p className="muted">The other party has not responded yet.</p>}
      {canRespond && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            respond.mutate();
          }}
        >
          <label htmlFor={textId}>Your response (once; the other party and any recommendation read it)</label>
          <textarea id={textId} required maxLength={5000} rows={4} value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="primary" disabled={respond.isPending || !text.trim()}>
            {respond.isPending ? 'Sending…' : 'Send response'}
          </button>
          {respond.isError && <ErrorMessage error={respond.error} />}
        </form>
      )}
    </section>
  );
}

function Withdraw({ dispute: d }: { dispute: Dispute }) {
  const changed = useDisputeChanged();
  const withdraw = useMutation({
    mutationFn: () => unwrap(api.POST('/api/disputes/{id}/withdraw', { params: { path: { id: d.id } } })),
    onSuccess: changed,
  });
  return (
    <section aria-labelledby="withdraw-heading">
      <h2 id="withdraw-heading">Withdraw</h2>
      <p className="muted">The contract returns to where it was; nothing is refunded or paid because of this dispute.</p>
      <ConfirmButton
        label="Withdraw the dispute…"
        question="Withdraw this dispute for good?"
        confirmLabel="Yes, withdraw it"
        busy={withdraw.isPending}
        onConfirm={() => withdraw.mutate()}
      />
      {withdraw.isError && <ErrorMessage error={withdraw.error} />}
    </section>
  );
}
