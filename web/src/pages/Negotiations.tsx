// Negotiations: every negotiation of the owner, newest first, filtered by status, a page at a
// time, with whose move it is and the latest round's terms in brief.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import { GigTitle } from '../components/GigTitle.tsx';
import { ListTable, ShowMore, StatusFilter } from '../components/Lists.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { money, totalCents, when } from '../format.ts';
import { negotiationKeys, type Negotiation, type NegotiationStatus } from '../negotiations.ts';
import { roleIn } from '../queries.ts';
import { href } from '../router.ts';
import { awaitingText, negotiationStatusLabel } from './NegotiationPage.tsx';

const STATUSES: NegotiationStatus[] = ['open', 'agreed', 'cancelled'];

export function Negotiations({ me }: { me: Me }) {
  const [status, setStatus] = useState<NegotiationStatus | ''>('');
  const list = useInfiniteQuery({
    queryKey: negotiationKeys.list(status || 'all'),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/negotiations', { params: { query: { limit: 20, cursor: pageParam, ...(status ? { status } : {}) } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const negotiations = list.data?.pages.flatMap((p) => p.data);

  return (
    <>
      <PageTitle title="Negotiations">Negotiations</PageTitle>
      <p className="muted">
        Your agents and the other side's propose rounds of terms; an agreed round becomes a contract for both owners to approve.
      </p>
      <StatusFilter value={status} statuses={STATUSES} label={negotiationStatusLabel} onChange={setStatus} />
      {list.isPending && <Loading what="negotiations" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {negotiations && negotiations.length === 0 && (
        <Empty>
          {status
            ? `No negotiations ${negotiationStatusLabel(status).toLowerCase()}.`
            : 'No negotiations yet: they start when a client’s agent offers terms to a shortlisted worker.'}
        </Empty>
      )}
      {negotiations && negotiations.length > 0 && (
        <ListTable
          caption="Your negotiations, newest first"
          columns={['Gig', 'You are', 'Status', 'Latest terms', 'Updated']}
          testId="negotiations"
        >
          {negotiations.map((n) => (
            <Row key={n.id} negotiation={n} me={me} />
          ))}
        </ListTable>
      )}
      <ShowMore list={list} />
    </>
  );
}

function Row({ negotiation: n, me }: { negotiation: Negotiation; me: Me }) {
  const role = roleIn(n, me);
  const latest = n.rounds.at(-1);
  return (
    <tr>
      <td>
        <a href={href.negotiation(n.id)}>
          <GigTitle gigId={n.gig_id} />
        </a>
      </td>
      <td>{role}</td>
      <td>
        <span className={`status status-${n.status}`}>{negotiationStatusLabel(n.status)}</span>
        {n.status === 'open' && <div className="muted small">{awaitingText(n.awaiting, role, n.status)}</div>}
      </td>
      <td>
        {latest
          ? `Round ${latest.number} by the ${latest.proposed_by}: ${money(totalCents(latest.milestones), latest.currency)}`
          : 'No terms yet'}
      </td>
      <td>
        <Time iso={n.updated_at} format={when} />
      </td>
    </tr>
  );
}
