// The exact terms an approval confirms: rate, hours per week, start date, payout delay, the
// approval deadline and the notes of the latest revise (milestones are their own table). What a
// party wrote (notes, milestone titles) is shown as a quotation, isolated from the page's text.
import type { Contract } from '../api.ts';
import { Time } from '../components/States.tsx';
import { day, money, timeLeft, totalCents, when } from '../format.ts';
import { useNow } from '../now.ts';

export function ContractTerms({ contract: c }: { contract: Contract }) {
  const now = useNow();
  return (
    <section aria-labelledby="terms-heading">
      <h2 id="terms-heading">Terms (revision {c.revision_count})</h2>
      <dl className="terms" data-testid="terms">
        <div>
          <dt>Rate</dt>
          <dd>{c.rate_cents === null ? 'None stated' : `${money(c.rate_cents, c.currency)} per hour`}</dd>
        </div>
        <div>
          <dt>Hours per week</dt>
          <dd>{c.hours_per_week ?? 'None stated'}</dd>
        </div>
        <div>
          <dt>Start date</dt>
          <dd>{c.start_date ? <time dateTime={c.start_date}>{day(c.start_date)}</time> : 'None stated'}</dd>
        </div>
        <div>
          <dt>Payout delay</dt>
          <dd>
            {c.payout_delay_days} day{c.payout_delay_days === 1 ? '' : 's'} after each release
          </dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>
            {money(totalCents(c.milestones), c.currency)} in {c.milestones.length} milestone{c.milestones.length === 1 ? '' : 's'}
          </dd>
        </div>
        {c.approval_deadline && c.status === 'pending_owner_approval' && (
          <div>
            <dt>Approve before</dt>
            <dd>
              <Time iso={c.approval_deadline} format={when} /> ({timeLeft(c.approval_deadline, now)})
            </dd>
          </div>
        )}
      </dl>
      {c.revision_notes && (
        <div className="notes">
          <h3>Notes of the latest revise</h3>
          <blockquote className="quoted" dir="auto">
            {c.revision_notes}
          </blockquote>
        </div>
      )}
    </section>
  );
}
