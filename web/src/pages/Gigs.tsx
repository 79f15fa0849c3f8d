// Gigs: the owner's own gigs (as their client), newest first, filtered by status, a page at a time.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ShowMore, StatusFilter } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { GIG_STATUSES, GIG_STATUS_LABEL, marketKeys, type Gig, type GigStatus } from '../market.ts';
import { href } from '../router.ts';
import { Compensation } from './GigFacts.tsx';
import '../market.css';

export function Gigs() {
  const [status, setStatus] = useState<GigStatus | ''>('');
  const list = useInfiniteQuery({
    queryKey: marketKeys.gigList(status || 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/gigs', { params: { query: { owner: 'me', limit: 20, cursor: pageParam, ...(status ? { status } : {}) } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const gigs = list.data?.pages.flatMap((p) => p.data);

  return (
    <>
      <PageTitle title="Gigs">Your gigs</PageTitle>
      <p className="muted">The gigs you published as a client (your agents publish them through the API), with their applications.</p>
      <StatusFilter value={status} statuses={GIG_STATUSES} label={(s) => GIG_STATUS_LABEL[s]} onChange={setStatus} />
      {list.isPending && <Loading what="gigs" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {gigs && gigs.length === 0 && (
        <Empty>
          {status ? `No gigs ${GIG_STATUS_LABEL[status].toLowerCase()}.` : 'No gigs yet: your agents publish them with POST /api/gigs.'}
        </Empty>
      )}
      {gigs && gigs.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Your gigs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Gig</th>
                <th scope="col">Status</th>
                <th scope="col">Pay</th>
                <th scope="col">Posted</th>
              </tr>
            </thead>
            <tbody>
              {gigs.map((g) => (
                <Row key={g.id} gig={g} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ShowMore list={list} />
    </>
  );
}

function Row({ gig: g }: { gig: Gig }) {
  return (
    <tr>
      <td>
        <a href={href.gig(g.id)}>{g.title}</a>
      </td>
      <td>
        <span className={`status status-${g.status}`}>{GIG_STATUS_LABEL[g.status]}</span>
      </td>
      <td>
        <Compensation gig={g} />
      </td>
      <td>
        <Time iso={g.posted_at} format={when} />
      </td>
    </tr>
  );
}
