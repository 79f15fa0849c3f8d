// The worker's payouts of a contract: each released milestone's amount (less any refund), when it
// falls due (the agreed payout delay after release) and when it was paid, or why it waits.
import type { Contract } from '../api.ts';
import { Time } from '../components/States.tsx';
import { money, when } from '../format.ts';

export function Payouts({ contract: c }: { contract: Contract }) {
  const payouts = c.milestones.filter((m) => m.status === 'released' || m.status === 'paid');
  if (payouts.length === 0) return null;
  return (
    <section aria-labelledby="payouts-heading">
      <h2 id="payouts-heading">Payouts</h2>
      <p className="muted small">
        Each released milestone is paid to the worker {c.payout_delay_days} day{c.payout_delay_days === 1 ? '' : 's'} after its release.
      </p>
      <div className="table-wrap">
        <table data-testid="payouts">
          <caption className="visually-hidden">Payouts of this contract</caption>
          <thead>
            <tr>
              <th scope="col">Milestone</th>
              <th scope="col">Amount</th>
              <th scope="col">Due</th>
              <th scope="col">Paid</th>
            </tr>
          </thead>
          <tbody>
            {payouts.map((m) => (
              <tr key={m.id}>
                <th scope="row">
                  {m.position}. {m.title}
                </th>
                <td>{money(m.amount_cents - m.refunded_cents, m.currency)}</td>
                <td>{m.payout_due_at ? <Time iso={m.payout_due_at} format={when} /> : '—'}</td>
                <td>
                  {m.paid_at ? (
                    <Time iso={m.paid_at} format={when} />
                  ) : c.status === 'disputed' ? (
                    'Held while the contract is disputed'
                  ) : (
                    'Not yet'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
