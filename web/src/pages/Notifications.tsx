// Notifications: the inbox (newest first, a page at a time; mark one read, mark all read) and, below
// it, which event types each channel receives.
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ShowMore } from '../components/Lists.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { dashboardLink, marketKeys, type InboxMessage } from '../market.ts';
import { ChannelPreferences } from './ChannelPreferences.tsx';
import '../market.css';

export function Notifications() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const filterId = useId();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery({
    queryKey: [...marketKeys.inbox, unreadOnly ? 'unread' : 'all'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/notifications/inbox/messages', {
          params: { query: { limit: 20, cursor: pageParam, ...(unreadOnly ? { unread: true } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const readAll = useMutation({
    mutationFn: () => unwrap(api.POST('/api/notifications/inbox/read-all')),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['notifications'] }),
  });
  const messages = list.data?.pages.flatMap((p) => p.data);
  const anyUnread = messages?.some((m) => !m.read);

  return (
    <>
      <PageTitle title="Notifications">Notifications</PageTitle>
      <section aria-labelledby="inbox-heading">
        <h2 id="inbox-heading">Inbox</h2>
        <div className="toolbar">
          <input id={filterId} type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.target.checked)} />
          <label htmlFor={filterId}>Unread only</label>
          <button type="button" className="secondary" disabled={readAll.isPending || !anyUnread} onClick={() => readAll.mutate()}>
            {readAll.isPending ? 'Marking…' : 'Mark all read'}
          </button>
        </div>
        {readAll.isSuccess && (
          <p className="ok" role="status">
            Marked {readAll.data.marked} message{readAll.data.marked === 1 ? '' : 's'} read.
          </p>
        )}
        {readAll.isError && <ErrorMessage error={readAll.error} />}
        {list.isPending && <Loading what="your inbox" />}
        {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
        {messages && messages.length === 0 && <Empty>{unreadOnly ? 'No unread messages.' : 'Your inbox is empty.'}</Empty>}
        {messages && messages.length > 0 && (
          <ul className="inbox" data-testid="inbox">
            {messages.map((m) => (
              <Message key={m.id} message={m} />
            ))}
          </ul>
        )}
        <ShowMore list={list} />
      </section>
      <ChannelPreferences />
    </>
  );
}

function Message({ message: m }: { message: InboxMessage }) {
  const queryClient = useQueryClient();
  const markRead = useMutation({
    mutationFn: () => unwrap(api.POST('/api/notifications/inbox/messages/{id}/read', { params: { path: { id: m.id } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['notifications'] }),
  });
  const link = dashboardLink(m.link);
  return (
    <li className={m.read ? 'read' : 'unread'}>
      <h3>
        {!m.read && <span className="visually-hidden">Unread: </span>}
        {m.title}
      </h3>
      <p className="muted small">
        <Time iso={m.created_at} format={when} />
        {m.read ? ' · read' : ' · unread'}
      </p>
      <p className="prose">{m.body}</p>
      <div className="row-actions">
        {link && (
          <a href={link.href} rel="noopener">
            {link.label}
          </a>
        )}
        {!m.read && (
          <button type="button" className="secondary" disabled={markRead.isPending} onClick={() => markRead.mutate()}>
            {markRead.isPending ? 'Marking…' : 'Mark read'}
          </button>
        )}
      </div>
      {markRead.isError && <ErrorMessage error={markRead.error} />}
    </li>
  );
}
