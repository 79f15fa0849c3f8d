// The unread count beside "Notifications" in the nav (nothing when none are unread).
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { keys } from '../queries.ts';
import '../market.css';

export function UnreadBadge() {
  const unread = useQuery({
    queryKey: keys.unread,
    queryFn: () => unwrap(api.GET('/api/notifications/inbox/unread-count')),
    refetchInterval: 60_000,
  });
  const n = unread.data?.unread ?? 0;
  if (n === 0) return null;
  return (
    <>
      {' '}
      <span className="badge" data-testid="nav-unread">
        {n}
        <span className="visually-hidden"> unread</span>
      </span>
    </>
  );
}
