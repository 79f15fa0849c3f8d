// Webhooks: the owner's endpoints (their URL, description, event types, enabled or why not), and
// registering one, whose signing secret (`whsec_…`) is shown once, as an API key's is.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { allPages, api, unwrap } from '../api.ts';
import { ListTable } from '../components/Lists.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Secret } from '../components/Secret.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { href } from '../router.ts';
import { endpointState, eventTypesText, webhookKeys, type WebhookEndpoint } from '../webhooks.ts';
import { draftReady, EndpointFields, type EndpointDraft } from './WebhookFields.tsx';
import '../webhooks.css';

export function Webhooks() {
  const list = useQuery({
    queryKey: webhookKeys.list,
    queryFn: () => allPages((cursor) => unwrap(api.GET('/api/webhooks', { params: { query: { limit: 100, cursor } } }))),
  });
  const [secret, setSecret] = useState<{ label: string; key: string } | null>(null);
  return (
    <>
      <PageTitle title="Webhooks">Webhooks</PageTitle>
      <p className="muted">
        Endpoints receive your events as signed POSTs (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
        <code>webhook-signature</code>), with retries. An endpoint's signing secret is shown once, when it is created or rotated.
      </p>
      {secret && <Secret label={secret.label} value={secret.key} onDone={() => setSecret(null)} />}
      <CreateEndpoint onCreated={(url, key) => setSecret({ label: `Signing secret for ${url}`, key })} />
      <h2>Your endpoints</h2>
      {list.isPending && <Loading what="your endpoints" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && list.data.length === 0 && <Empty>No endpoints yet. Register one above to receive your events.</Empty>}
      {list.data && list.data.length > 0 && (
        <ListTable
          caption="Your webhook endpoints, newest first"
          columns={['Endpoint', 'Description', 'Event types', 'Status', 'Created']}
          testId="endpoints"
        >
          {list.data.map((e) => (
            <Row key={e.id} endpoint={e} />
          ))}
        </ListTable>
      )}
    </>
  );
}

function Row({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <tr>
      <td className="url">
        <a href={href.webhook(e.id)}>{e.url}</a>
      </td>
      <td>{e.description || <span className="muted">—</span>}</td>
      <td className="types">{eventTypesText(e.event_types)}</td>
      <td>
        <span className={`status ${e.enabled ? 'status-active' : 'status-cancelled'}`}>{endpointState(e)}</span>
        {e.enabled && e.failing_since && (
          <span className="small">
            {' '}
            Failing since <Time iso={e.failing_since} format={when} />
          </span>
        )}
      </td>
      <td>
        <Time iso={e.created_at} format={when} />
      </td>
    </tr>
  );
}

const EMPTY: EndpointDraft = { url: '', description: '', eventTypes: null };

function CreateEndpoint({ onCreated }: { onCreated: (url: string, secret: string) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(EMPTY);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/webhooks', {
          body: { url: draft.url.trim(), description: draft.description.trim(), event_types: draft.eventTypes },
        }),
      ),
    onSuccess: (created) => {
      setDraft(EMPTY);
      onCreated(created.url, created.secret);
      void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
    },
  });
  return (
    <form
      className="create-endpoint"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2>Register an endpoint</h2>
      <EndpointFields draft={draft} onChange={setDraft} />
      <button type="submit" className="primary" disabled={create.isPending || !draftReady(draft)}>
        {create.isPending ? 'Registering…' : 'Register endpoint'}
      </button>
      {create.isError && <ErrorMessage error={create.error} />}
    </form>
  );
}
