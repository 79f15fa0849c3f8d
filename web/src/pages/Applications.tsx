// A gig's applications and invitations, newest first, a page at a time, with what the client can
// do: shortlist a submitted one (it costs credits: SHORTLIST_COST) and reject one (confirmed).
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ShowMore } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { money, when } from '../format.ts';
import { APPLICATION_STATUS_LABEL, SHORTLIST_COST, credits, marketKeys, type Application, type Gig } from '../market.ts';
import { useDisplayName } from '../queries.ts';
import { href } from '../router.ts';

export function Applications({ gig }: { gig: Gig }) {
  const list = useInfiniteQuery({
    queryKey: marketKeys.applications(gig.id),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/gigs/{id}/applications', { params: { path: { id: gig.id }, query: { limit: 20, cursor: pageParam } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const balance = useQuery({ queryKey: marketKeys.balance, queryFn: () => unwrap(api.GET('/api/credits')) });
  const applications = list.data?.pages.flatMap((p) => p.data);
  return (
    <section aria-labelledby="applications-heading">
      <h2 id="applications-heading">Applications</h2>
      <p className="muted" data-testid="shortlist-cost">
        Shortlisting an application costs {credits(SHORTLIST_COST)}, once per application
        {balance.data && (
          <>
            ; your balance is <strong>{credits(balance.data.credits_balance)}</strong> (<a href={href.credits}>credits</a>)
          </>
        )}
        . Rejecting is free.
      </p>
      {list.isPending && <Loading what="applications" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {applications && applications.length === 0 && <Empty>No applications yet.</Empty>}
      {applications && applications.length > 0 && (
        <ul className="applications" data-testid="applications">
          {applications.map((a) => (
            <ApplicationItem key={a.id} application={a} gig={gig} />
          ))}
        </ul>
      )}
      <ShowMore list={list} />
    </section>
  );
}

function ApplicationItem({ application: a, gig }: { application: Application; gig: Gig }) {
  const worker = useDisplayName(a.worker_user_id);
  const name = worker.data ?? `Worker ${a.worker_user_id.slice(0, 8)}…`;
  const queryClient = useQueryClient();
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: marketKeys.applications(gig.id) });
    void queryClient.invalidateQueries({ queryKey: marketKeys.credits });
  };
  const shortlist = useMutation({
    mutationFn: () => unwrap(api.POST('/api/applications/{id}/shortlist', { params: { path: { id: a.id } } })),
    onSettled: changed,
  });
  const reject = useMutation({
    mutationFn: () => unwrap(api.POST('/api/applications/{id}/reject', { params: { path: { id: a.id } } })),
    onSettled: changed,
  });
  const canShortlist = a.status === 'submitted' && (gig.status === 'open' || gig.status === 'paused');
  const canReject = a.status === 'submitted' || a.status === 'shortlisted';
  const busy = shortlist.isPending || reject.isPending;
  return (
    <li aria-label={`${name}'s ${a.origin}`}>
      <h3>
        {name} <span className={`status status-${a.status}`}>{APPLICATION_STATUS_LABEL[a.status]}</span>
      </h3>
      <p className="muted small">
        {a.origin === 'invitation' ? 'You invited this worker' : 'Applied'} <Time iso={a.created_at} format={when} />
        {a.proposed_rate_cents !== null && (
          <>
            {' '}
            · proposes <strong>{money(a.proposed_rate_cents, gig.currency)} per hour</strong>
          </>
        )}
      </p>
      {a.message ? <p className="prose">{a.message}</p> : <p className="muted">No message.</p>}
      {(canShortlist || canReject) && (
        <div className="row-actions">
          {canShortlist && (
            <button type="button" className="primary" disabled={busy} onClick={() => shortlist.mutate()}>
              {shortlist.isPending ? 'Shortlisting…' : `Shortlist ${name} (${credits(SHORTLIST_COST)})`}
            </button>
          )}
          {canReject && (
            <ConfirmButton
              label={`Reject ${name}…`}
              question={`Reject ${name}'s ${a.origin}? This cannot be undone.`}
              confirmLabel="Yes, reject"
              busy={busy}
              onConfirm={() => reject.mutate()}
            />
          )}
        </div>
      )}
      {shortlist.isError && <ErrorMessage error={shortlist.error} />}
      {reject.isError && <ErrorMessage error={reject.error} />}
    </li>
  );
}
