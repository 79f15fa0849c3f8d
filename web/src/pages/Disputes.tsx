// Disputes: every dispute of the owner's contracts, newest first, filtered by status, a page at a
// time, each with what it awaits from the owner.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import {
  DISPUTE_STATUS_LABEL,
  DISPUTE_STATUSES,
  awaitedFrom,
  disputeKeys,
  REASON_LABEL,
  viewerRole,
  type Dispute,
  type DisputeStatus,
} from '../disputes.ts';
import { GigOfContract } from '../components/GigTitle.tsx';
import { ListTable, ShowMore, StatusFilter } from '../components/Lists.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { href } from '../router.ts';
import '../disputes.css';

const label = (s: DisputeStatus) => DISPUTE_STATUS_LABEL[s];

export function Disputes({ me }: { me: Me }) {
  const [status, setStatus] = useState<DisputeStatus | ''>('');
  const list = useInfiniteQuery({
    queryKey: disputeKeys.list(status || 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/disputes', { params: { query: { limit: 20, cursor: pageParam, ...(status ? { status } : {}) } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const disputes = list.data?.pages.flatMap((p) => p.data);

  return (
    <>
      <PageTitle title="Disputes">Disputes</PageTitle>
      <p className="muted">
        A dispute holds a contract's money in escrow until both parties accept the same outcome or its opener withdraws it. Open one from
        the contract's page.
      </p>
      <StatusFilter value={status} statuses={DISPUTE_STATUSES} label={label} onChange={setStatus} />
      {list.isPending && <Loading what="disputes" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {disputes && disputes.length === 0 && (
        <Empty>{status ? `No disputes ${label(status).toLowerCase()}.` : 'No disputes: may it stay so.'}</Empty>
      )}
      {disputes && disputes.length > 0 && (
        <ListTable
          caption="Disputes of your contracts, newest first"
          columns={['Contract', 'Reason', 'Opened by', 'Status', 'Opened']}
          testId="disputes"
        >
          {disputes.map((d) => (
            <Row key={d.id} dispute={d} me={me} />
          ))}
        </ListTable>
      )}
      <ShowMore list={list} />
    </>
  );
}

function Row({ dispute: d, me }: { dispute: Dispute; me: Me }) {
  const awaited = awaitedFrom(d, me);
  return (
    <tr>
      <td>
        <a href={href.dispute(d.id)}>
          <GigOfContract contractId={d.contract_id} />
        </a>
      </td>
      <td>{REASON_LABEL[d.reason]}</td>
      <td>{d.opener_user_id === me.user_id ? 'you' : `the ${viewerRole(d, me) === 'client' ? 'worker' : 'client'}`}</td>
      <td>
        <span className={`status status-dispute-${d.status}`}>{label(d.status)}</span>
        {awaited && <div className="small awaits">Awaits you: {awaited}</div>}
      </td>
      <td>
        <Time iso={d.created_at} format={when} />
      </td>
    </tr>
  );
}
