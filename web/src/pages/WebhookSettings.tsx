// An endpoint's settings: its URL (checked again by the API), description and event types, edited
// and saved with one PATCH.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorMessage } from '../components/States.tsx';
import { webhookKeys, type WebhookEndpoint } from '../webhooks.ts';
import { draftReady, EndpointFields, type EndpointDraft } from './WebhookFields.tsx';

const draftOf = (e: WebhookEndpoint): EndpointDraft => ({ url: e.url, description: e.description, eventTypes: e.event_types });

const sameTypes = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((t) => b.includes(t));

export function WebhookSettings({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(e));
  const [saved, setSaved] = useState(false);
  const changes = {
    ...(draft.url.trim() !== e.url ? { url: draft.url.trim() } : {}),
    ...(draft.description.trim() !== e.description ? { description: draft.description.trim() } : {}),
    ...(sameTypes(draft.eventTypes, e.event_types) ? {} : { event_types: draft.eventTypes }),
  };
  const changed = Object.keys(changes).length > 0;
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/api/webhooks/{id}', { params: { path: { id: e.id } }, body: changes })),
    onSuccess: (after) => {
      setSaved(true);
      setDraft(draftOf(after));
      queryClient.setQueryData(webhookKeys.endpoint(e.id), after);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list });
    },
  });
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <form
        className="endpoint-settings"
        onSubmit={(ev) => {
          ev.preventDefault();
          setSaved(false);
          save.mutate();
        }}
      >
        <EndpointFields
          draft={draft}
          onChange={(d) => {
            setSaved(false);
            setDraft(d);
          }}
        />
        <div className="row">
          <button type="submit" className="primary" disabled={save.isPending || !changed || !draftReady(draft)}>
            {save.isPending ? 'Saving…' : 'Save changes'}
          </button>
          {saved && !changed && (
            <span className="ok" role="status">
              Saved.
            </span>
          )}
        </div>
        {save.isError && <ErrorMessage error={save.error} />}
      </form>
    </section>
  );
}
