// Contracts: every contract of the owner, newest first, filtered by status, a page at a time.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Contract, type ContractStatus, type Me } from '../api.ts';
import { GigTitle } from '../components/GigTitle.tsx';
import { ListTable, ShowMore, StatusFilter } from '../components/Lists.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { money, statusLabel, totalCents, when } from '../format.ts';
import { keys, roleIn } from '../queries.ts';
import { href } from '../router.ts';

const STATUSES: ContractStatus[] = [
  'pending_owner_approval',
  'pending_freelancer_kyc',
  'active',
  'negotiation',
  'disputed',
  'completed',
  'cancelled',
  'expired',
];

export function Contracts({ me }: { me: Me }) {
  const [status, setStatus] = useState<ContractStatus | ''>('');
  const list = useInfiniteQuery({
    queryKey: keys.contractList(status || 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/contracts', { params: { query: { limit: 20, cursor: pageParam, ...(status ? { status } : {}) } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const contracts = list.data?.pages.flatMap((p) => p.data);

  return (
    <>
      <PageTitle title="Contracts">Contracts</PageTitle>
      <StatusFilter value={status} statuses={STATUSES} label={statusLabel} onChange={setStatus} />
      {list.isPending && <Loading what="contracts" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {contracts && contracts.length === 0 && (
        <Empty>
          {status ? `No contracts ${statusLabel(status).toLowerCase()}.` : 'No contracts yet: they appear when a negotiation is agreed.'}
        </Empty>
      )}
      {contracts && contracts.length > 0 && (
        <ListTable caption="Your contracts, newest first" columns={['Gig', 'You are', 'Status', 'Total', 'Created']}>
          {contracts.map((c) => (
            <Row key={c.id} contract={c} me={me} />
          ))}
        </ListTable>
      )}
      <ShowMore list={list} />
    </>
  );
}

function Row({ contract: c, me }: { contract: Contract; me: Me }) {
  return (
    <tr>
      <td>
        <a href={href.contract(c.id)}>
          <GigTitle gigId={c.gig_id} />
        </a>
      </td>
      <td>{roleIn(c, me)}</td>
      <td>
        <span className={`status status-${c.status}`}>{statusLabel(c.status)}</span>
      </td>
      <td>{money(totalCents(c.milestones), c.currency)}</td>
      <td>
        <Time iso={c.created_at} format={when} />
      </td>
    </tr>
  );
}
