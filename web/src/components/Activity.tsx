// Which agent did what: the events about a negotiation or a contract, newest first, each with
// its time (the viewer's time zone), what happened and who did it (actorText).
import type { Me } from '../api.ts';
import { actorText, eventText } from '../activity.ts';
import { when } from '../format.ts';
import { useAllKeys, useEventsOf } from '../negotiations.ts';
import { Empty, ErrorMessage, Loading, Time } from './States.tsx';
import '../negotiations.css';

/** `asOf`: when the page last read the negotiation or contract; the activity is read again with it. */
export function Activity({ resourceId, asOf, me }: { resourceId: string; asOf: number; me: Me }) {
  const events = useEventsOf(resourceId, asOf);
  const myKeys = useAllKeys();
  return (
    <section aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      <p className="muted small">Newest first: who did what, by which of your API keys and agents, or the other party's.</p>
      {(events.isPending || myKeys.isPending) && <Loading what="the activity" />}
      {events.isError && <ErrorMessage error={events.error} onRetry={() => void events.refetch()} />}
      {myKeys.isError && <ErrorMessage error={myKeys.error} onRetry={() => void myKeys.refetch()} />}
      {events.data && myKeys.data && events.data.length === 0 && <Empty>Nothing has happened here yet.</Empty>}
      {events.data && myKeys.data && events.data.length > 0 && (
        <ol className="activity" data-testid="activity">
          {events.data.map((e) => (
            <li key={e.id}>
              <Time iso={e.created_at} format={when} /> <span className="what">{eventText(e)}</span>{' '}
              <span className="by">by {actorText(e.actor, me.user_id, myKeys.data)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
