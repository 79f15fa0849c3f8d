// Which event types each notification channel receives: one checkbox per type and channel; each
// change replaces that channel's list (PATCH /api/notifications/{channel}).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorMessage, Loading } from '../components/States.tsx';
import { EVENT_TYPE_LABEL, marketKeys, type Channel, type EventType } from '../market.ts';

const CHANNEL_LABEL: Record<Channel['channel'], string> = { inbox: 'Inbox', email: 'Email' };
const TYPES = Object.keys(EVENT_TYPE_LABEL) as EventType[];

export function ChannelPreferences() {
  const queryClient = useQueryClient();
  const channels = useQuery({ queryKey: marketKeys.channels, queryFn: () => unwrap(api.GET('/api/notifications')) });
  // The list as the owner just set it, shown until the server answers (React state, so the box
  // changes in the click's own render); a refusal shows the channel as the server has it, with the reason.
  const [shown, setShown] = useState<Channel[] | null>(null);
  const list = shown ?? channels.data?.data;
  const update = useMutation({
    mutationFn: ({ channel, eventTypes }: { channel: Channel['channel']; eventTypes: EventType[] }) =>
      unwrap(api.PATCH('/api/notifications/{channel}', { params: { path: { channel } }, body: { event_types: eventTypes } })),
    onSuccess: (updated) =>
      queryClient.setQueryData(marketKeys.channels, (old: { data: Channel[] } | undefined) =>
        old ? { data: old.data.map((c) => (c.channel === updated.channel ? updated : c)) } : old,
      ),
    onSettled: () => setShown(null),
  });
  const toggle = (c: Channel, type: EventType, on: boolean) => {
    const eventTypes = on ? [...c.event_types, type] : c.event_types.filter((t) => t !== type);
    setShown((list ?? []).map((x) => (x.channel === c.channel ? { ...x, event_types: eventTypes } : x)));
    update.mutate({ channel: c.channel, eventTypes });
  };

  return (
    <section aria-labelledby="channels-heading">
      <h2 id="channels-heading">What each channel receives</h2>
      {channels.isPending && <Loading what="your channels" />}
      {channels.isError && <ErrorMessage error={channels.error} onRetry={() => void channels.refetch()} />}
      {list && (
        <>
          <p className="muted">
            {list.map((c) => (
              <span key={c.channel}>
                {CHANNEL_LABEL[c.channel]}
                {c.address ? ` (${c.address})` : ''}: {c.customized ? 'your choice' : 'the default types'}.{' '}
              </span>
            ))}
            {!list.some((c) => c.channel === 'email') &&
              'Email appears here once your profile has an email address and the server sends email.'}
          </p>
          <div className="table-wrap">
            <table className="channels" data-testid="channels">
              <caption className="visually-hidden">Event types by channel</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  {list.map((c) => (
                    <th key={c.channel} scope="col">
                      {CHANNEL_LABEL[c.channel]}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {TYPES.map((type) => (
                  <tr key={type}>
                    <th scope="row">{EVENT_TYPE_LABEL[type]}</th>
                    {list.map((c) => (
                      <td key={c.channel}>
                        <input
                          type="checkbox"
                          aria-label={`${EVENT_TYPE_LABEL[type]}: ${CHANNEL_LABEL[c.channel]}`}
                          checked={c.event_types.includes(type)}
                          disabled={update.isPending}
                          onChange={(e) => toggle(c, type, e.target.checked)}
                        />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {update.isError && <ErrorMessage error={update.error} />}
        </>
      )}
    </section>
  );
}
