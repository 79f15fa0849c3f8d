// Credits: the balance, tier, monthly grant and when the next one is due, and the ledger (newest
// first, a page at a time): each entry's amount with its sign, its reason in words, its reference.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ShowMore } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { CREDIT_REASON, credits, marketKeys, type CreditEntry } from '../market.ts';
import '../market.css';

const TIER_LABEL = { free: 'Free', pro: 'Pro', team: 'Team' } as const;

export function Credits() {
  const balance = useQuery({ queryKey: marketKeys.balance, queryFn: () => unwrap(api.GET('/api/credits')) });
  const ledger = useInfiniteQuery({
    queryKey: marketKeys.ledger,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => unwrap(api.GET('/api/credits/transactions', { params: { query: { limit: 20, cursor: pageParam } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const entries = ledger.data?.pages.flatMap((p) => p.data);
  const b = balance.data;
  return (
    <>
      <PageTitle title="Credits">Credits</PageTitle>
      <p className="muted">
        The platform charges credits for a match (shortlisting an application) and an introduction (sharing your contact details in a
        negotiation). Credits do not expire.
      </p>
      {balance.isPending && <Loading what="your balance" />}
      {balance.isError && <ErrorMessage error={balance.error} onRetry={() => void balance.refetch()} />}
      {b && (
        <dl className="facts" data-testid="balance">
          <div>
            <dt>Balance</dt>
            <dd className="balance">{credits(b.credits_balance)}</dd>
          </div>
          <div>
            <dt>Tier</dt>
            <dd>{TIER_LABEL[b.subscription_tier]}</dd>
          </div>
          <div>
            <dt>Monthly grant</dt>
            <dd>{credits(b.monthly_grant)}</dd>
          </div>
          <div>
            <dt>Next grant</dt>
            <dd>
              <Time iso={b.next_grant_at} format={when} />
            </dd>
          </div>
        </dl>
      )}
      <section aria-labelledby="ledger-heading">
        <h2 id="ledger-heading">Ledger</h2>
        {ledger.isPending && <Loading what="your ledger" />}
        {ledger.isError && <ErrorMessage error={ledger.error} onRetry={() => void ledger.refetch()} />}
        {entries && entries.length === 0 && <Empty>No entries yet.</Empty>}
        {entries && entries.length > 0 && (
          <div className="table-wrap">
            <table data-testid="ledger">
              <caption className="visually-hidden">Your credits ledger, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <Row key={e.id} entry={e} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ShowMore list={ledger} />
      </section>
    </>
  );
}

function Row({ entry: e }: { entry: CreditEntry }) {
  return (
    <tr>
      <td>
        <Time iso={e.created_at} format={when} />
      </td>
      <td className={e.amount < 0 ? 'amount-minus' : 'amount-plus'}>{credits(e.amount, true)}</td>
      <td>
        {CREDIT_REASON[e.reason]}
        {e.note && <span className="muted"> ({e.note})</span>}
      </td>
      <td>
        <Reference value={e.reference_id} />
      </td>
    </tr>
  );
}

/** `negotiation:<id>` and `application:<id>` in words; a period or the caller's own reference as it is. */
function Reference({ value }: { value: string | null }) {
  if (!value) return <span className="muted">—</span>;
  const [kind, id] = value.split(':', 2);
  if (kind === 'negotiation' && id) return <>Negotiation {id.slice(0, 8)}…</>;
  if (kind === 'application' && id) return <>Application {id.slice(0, 8)}…</>;
  if (/^\d{4}-\d{2}$/.test(value)) return <>Month {value}</>;
  return <code>{value}</code>;
}
