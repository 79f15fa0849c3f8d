// Every milestone with its amount and currency, due date, state and payout dates; for the client
// of an active contract, fund (on the sandbox, then pay on its page) and release.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Contract, type Milestone } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage, Time } from '../components/States.tsx';
import { day, money, statusLabel, when } from '../format.ts';
import { useContractChanged } from './ContractActions.tsx';

export function Milestones({ contract: c, role }: { contract: Contract; role: 'client' | 'worker' }) {
  const acts = role === 'client' && c.status === 'active';
  return (
    <section aria-labelledby="milestones-heading">
      <h2 id="milestones-heading">Milestones</h2>
      <div className="table-wrap">
        <table data-testid="milestones">
          <caption className="visually-hidden">Milestones of this contract, in order</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Milestone</th>
              <th scope="col">Amount</th>
              <th scope="col">Due</th>
              <th scope="col">State</th>
              {acts && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {c.milestones.map((m) => (
              <tr key={m.id}>
                <td>{m.position}</td>
                <th scope="row">
                  {/* Written by a party: quoted, and isolated so its characters cannot reorder what is around it. */}
                  <q className="quoted" dir="auto">
                    {m.title}
                  </q>
                </th>
                <td>
                  {money(m.amount_cents, m.currency)}
                  {m.refunded_cents > 0 && <div className="muted">{money(m.refunded_cents, m.currency)} refunded</div>}
                </td>
                <td>{m.due_date ? <time dateTime={m.due_date}>{day(m.due_date)}</time> : '—'}</td>
                <td>
                  <span className={`status status-${m.status}`}>{statusLabel(m.status)}</span>
                  <MilestoneDates milestone={m} />
                </td>
                {acts && (
                  <td>
                    <MilestoneAction contract={c} milestone={m} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function MilestoneDates({ milestone: m }: { milestone: Milestone }) {
  const dates: [string, string | null][] = [
    ['funded', m.funded_at],
    ['released', m.released_at],
    ['payout due', m.status === 'released' ? m.payout_due_at : null],
    ['paid', m.paid_at],
  ];
  return (
    <>
      {dates.map(([label, iso]) =>
        iso ? (
          <div key={label} className="muted small">
            {label} <Time iso={iso} format={when} />
          </div>
        ) : null,
      )}
    </>
  );
}

function MilestoneAction({ contract: c, milestone: m }: { contract: Contract; milestone: Milestone }) {
  const changed = useContractChanged(c.id);
  const [payment, setPayment] = useState<{ url: string | null; provider: string } | null>(null);
  const path = { id: c.id, milestoneId: m.id };
  const fund = useMutation({
    mutationFn: () => unwrap(api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path } })),
    onSuccess: (result) => {
      const url = result.payment_page_url && result.client_secret ? payPage(result.payment_page_url, result.client_secret) : null;
      setPayment(result.client_secret ? { url, provider: result.provider } : null);
      changed();
    },
  });
  const release = useMutation({
    mutationFn: () => unwrap(api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', { params: { path } })),
    onSuccess: (result) => changed(result.contract),
  });
  const label = `“${m.title}”`;
  const fundText = fund.isPending ? 'Funding…' : m.status === 'pending' ? 'Fund' : 'Continue payment';
  return (
    <div className="milestone-action">
      {(m.status === 'pending' || m.status === 'funding') && !payment && (
        <button
          type="button"
          className="primary"
          disabled={fund.isPending}
          onClick={() => fund.mutate()}
          aria-label={`${fundText} ${label}`}
        >
          {fundText}
        </button>
      )}
      {payment?.url && (
        <>
          <a className="button" href={payment.url} target="_blank" rel="noopener">
            Pay {money(m.amount_cents, m.currency)} on the sandbox page
          </a>
          <p className="muted small">Opens in a new tab; refresh this contract once paid.</p>
        </>
      )}
      {payment && !payment.url && (
        <p className="muted small">
          Confirm this payment with {payment.provider === 'stripe' ? 'Stripe' : 'the provider'}; it shows here once confirmed.
        </p>
      )}
      {m.status === 'funded' && (
        <ConfirmButton
          label={`Release ${label}`}
          question={`Release ${money(m.amount_cents, m.currency)} to the worker? It cannot be undone.`}
          confirmLabel="Yes, release"
          busy={release.isPending}
          onConfirm={() => release.mutate()}
        />
      )}
      {fund.isError && <ErrorMessage error={fund.error} />}
      {release.isError && <ErrorMessage error={release.error} />}
    </div>
  );
}

function payPage(url: string, clientSecret: string): string {
  const page = new URL(url);
  page.searchParams.set('client_secret', clientSecret);
  return page.toString();
}
