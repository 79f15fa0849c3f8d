// A contract's disputes (links to each) and, while money of it is in escrow, opening one: the
// reason, what is wrong, and the milestones concerned.
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type Contract, type Milestone } from '../api.ts';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { DISPUTE_STATUS_LABEL, REASON_LABEL, useDisputesOfContract, type DisputeReason, useDisputeChanged } from '../disputes.ts';
import { money, when } from '../format.ts';
import { href } from '../router.ts';
import '../disputes.css';

/** Money still in escrow: funded, or released and not yet paid out (what a dispute can hold). */
const inEscrow = (m: Milestone) => m.status === 'funded' || (m.status === 'released' && !m.paid_at);

export function ContractDisputes({ contract: c }: { contract: Contract }) {
  const disputes = useDisputesOfContract(c.id);
  const disputable = (c.status === 'active' || c.status === 'completed') && c.milestones.some(inEscrow);
  if (disputes.isPending) return <Loading what="the contract's disputes" />;
  if (disputes.isError) return <ErrorMessage error={disputes.error} onRetry={() => void disputes.refetch()} />;
  if (disputes.data.length === 0 && !disputable) return null;
  return (
    <section aria-labelledby="disputes-heading">
      <h2 id="disputes-heading">Disputes</h2>
      {disputes.data.length > 0 && (
        <ul data-testid="contract-disputes">
          {disputes.data.map((d) => (
            <li key={d.id}>
              <a href={href.dispute(d.id)}>{REASON_LABEL[d.reason]}</a>, opened by the {d.opener_role}{' '}
              <Time iso={d.created_at} format={when} />: {DISPUTE_STATUS_LABEL[d.status].toLowerCase()}
            </li>
          ))}
        </ul>
      )}
      {disputable && <OpenDispute contract={c} />}
    </section>
  );
}

function OpenDispute({ contract: c }: { contract: Contract }) {
  const changed = useDisputeChanged();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<DisputeReason>('work_not_as_agreed');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const reasonId = useId();
  const descriptionId = useId();
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/contracts/{id}/disputes', {
          params: { path: { id: c.id } },
          body: { reason, description: description.trim(), milestone_ids: chosen },
        }),
      ),
    onSuccess: (dispute) => {
      changed();
      window.location.hash = href.dispute(dispute.id);
    },
  });
  if (!open)
    return (
      <p>
        <button type="button" className="secondary" onClick={() => setOpen(true)}>
          Open a dispute…
        </button>{' '}
        <span className="muted small">Holds the money in escrow until you and the other party agree how it ends.</span>
      </p>
    );
  const toggle = (id: string) => setChosen((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));
  return (
    <form
      className="open-dispute"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <div className="fields">
        <label htmlFor={reasonId}>Reason</label>
        <select id={reasonId} value={reason} onChange={(e) => setReason(e.target.value as DisputeReason)}>
          {Object.entries(REASON_LABEL).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <label htmlFor={descriptionId}>What is wrong? The other party reads this, and so does any recommendation.</label>
      <textarea
        id={descriptionId}
        required
        maxLength={5000}
        rows={4}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <fieldset>
        <legend>The milestones whose money is disputed</legend>
        {c.milestones.filter(inEscrow).map((m) => (
          <label key={m.id} className="choice">
            <input type="checkbox" checked={chosen.includes(m.id)} onChange={() => toggle(m.id)} /> {m.position}. {m.title} (
            {money(m.amount_cents, m.currency)})
          </label>
        ))}
      </fieldset>
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending || !description.trim() || chosen.length === 0}>
          {create.isPending ? 'Opening…' : 'Open the dispute'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Never mind
        </button>
      </div>
      {create.isError && <ErrorMessage error={create.error} />}
    </form>
  );
}
