// An endpoint's delivery attempts, newest first, a page at a time and kept current while the page is
// open: each attempt's event, number, answer, duration, response excerpt, error and next retry, with
// "Redeliver"; and the replay of every event never delivered since a time.
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ListTable, ShowMore } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { REFRESH_MS, webhookKeys, type WebhookDelivery, type WebhookEndpoint } from '../webhooks.ts';

export function WebhookDeliveries({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  const list = useInfiniteQuery({
    queryKey: webhookKeys.deliveries(e.id),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: e.id }, query: { limit: 20, cursor: pageParam } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    refetchInterval: REFRESH_MS,
  });
  const deliveries = list.data?.pages.flatMap((p) => p.data);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <p className="muted">
        Every attempt, newest first (kept for 30 days). Receivers tell attempts of one event apart from new events by its id, sent as{' '}
        <code>webhook-id</code>.
      </p>
      {!e.enabled && <p className="notice">This endpoint is disabled: enable it to redeliver or replay.</p>}
      <Replay endpoint={e} />
      {list.isPending && <Loading what="deliveries" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {deliveries && deliveries.length === 0 && <Empty>No deliveries yet. Send a test event to see one.</Empty>}
      {deliveries && deliveries.length > 0 && (
        <ListTable
          caption="Delivery attempts, newest first"
          columns={['When', 'Event', 'Attempt', 'Answer', 'Duration', 'Response', 'Error', 'Next retry', 'Actions']}
          testId="deliveries"
        >
          {deliveries.map((d) => (
            <Row key={d.id} delivery={d} endpoint={e} />
          ))}
        </ListTable>
      )}
      <ShowMore list={list} />
    </section>
  );
}

function Row({ delivery: d, endpoint: e }: { delivery: WebhookDelivery; endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id: e.id, deliveryId: d.id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(e.id) }),
  });
  const test = d.event_type === 'webhook.test';
  return (
    <tr>
      <td>
        <Time iso={d.created_at} format={when} />
      </td>
      <th scope="row">
        <code>{d.event_type}</code>
        <br />
        <code className="muted small">{d.event_id}</code>
      </th>
      <td>{d.attempt}</td>
      <td>
        <span className={`status ${d.succeeded ? 'status-active' : 'status-cancelled'}`}>
          {d.status_code === null ? 'No answer' : d.status_code}
          <span className="visually-hidden">{d.succeeded ? ' (delivered)' : ' (failed)'}</span>
        </span>
      </td>
      <td>{d.duration_ms} ms</td>
      <td className="excerpt">{d.response_excerpt ? <code>{d.response_excerpt}</code> : <span className="muted">—</span>}</td>
      <td>{d.error ?? <span className="muted">—</span>}</td>
      <td>{d.next_retry_at ? <Time iso={d.next_retry_at} format={when} /> : <span className="muted">—</span>}</td>
      <td>
        {test ? (
          <span className="muted small">Test events are not redelivered</span>
        ) : (
          <button
            type="button"
            className="secondary"
            aria-label={`Redeliver ${d.event_type} (attempt ${d.attempt})`}
            disabled={!e.enabled || redeliver.isPending}
            onClick={() => redeliver.mutate()}
          >
            {redeliver.isPending ? 'Queuing…' : 'Redeliver'}
          </button>
        )}
        {redeliver.isSuccess && (
          <span className="small" role="status">
            {' '}
            Queued.
          </span>
        )}
        {redeliver.isError && <ErrorMessage error={redeliver.error} />}
      </td>
    </tr>
  );
}

/** A `datetime-local` value (the viewer's time zone) for an instant. */
function localInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function Replay({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const id = useId();
  const hint = useId();
  const [since, setSince] = useState(() => localInput(e.failing_since ? new Date(e.failing_since) : new Date(Date.now() - 86_400_000)));
  const replay = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/webhooks/{id}/replay', { params: { path: { id: e.id } }, body: { since: new Date(since).toISOString() } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(e.id) }),
  });
  const valid = since !== '' && !Number.isNaN(new Date(since).getTime());
  return (
    <form
      className="replay"
      onSubmit={(ev) => {
        ev.preventDefault();
        replay.mutate();
      }}
    >
      <div>
        <label htmlFor={id}>Replay failed deliveries since</label>
        <input id={id} type="datetime-local" required aria-describedby={hint} value={since} onChange={(ev) => setSince(ev.target.value)} />
        <p className="muted small" id={hint}>
          In your time zone. Every event never delivered since then is sent again, once.
        </p>
      </div>
      <button type="submit" className="secondary" disabled={!e.enabled || !valid || replay.isPending}>
        {replay.isPending ? 'Replaying…' : 'Replay failed deliveries'}
      </button>
      {replay.data && (
        <p className="ok" role="status">
          {replay.data.queued === 1 ? '1 event queued.' : `${replay.data.queued} events queued.`}
        </p>
      )}
      {replay.isError && <ErrorMessage error={replay.error} />}
    </form>
  );
}
