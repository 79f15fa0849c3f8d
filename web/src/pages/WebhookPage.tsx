// A webhook endpoint at `#/webhooks/{id}`: its state, what can be done with
// it (a test message, enable or disable, a new signing secret, delete), its delivery attempts, and
// its settings (editable).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { Secret } from '../components/Secret.tsx';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { href } from '../router.ts';
import { endpointState, REFRESH_MS, webhookKeys } from '../webhooks.ts';
import { WebhookActions } from './WebhookActions.tsx';
import { WebhookDeliveries } from './WebhookDeliveries.tsx';
import { WebhookSettings } from './WebhookSettings.tsx';
import '../webhooks.css';

export function WebhookPage({ id }: { id: string }) {
  const endpoint = useQuery({
    queryKey: webhookKeys.endpoint(id),
    queryFn: () => unwrap(api.GET('/api/webhooks/{id}', { params: { path: { id } } })),
    refetchInterval: REFRESH_MS,
  });
  const [secret, setSecret] = useState<string | null>(null);
  if (endpoint.isPending || endpoint.isError)
    return (
      <>
        <PageTitle title="Webhook endpoint">Webhook endpoint</PageTitle>
        {endpoint.isPending ? (
          <Loading what="the endpoint" />
        ) : (
          <ErrorMessage error={endpoint.error} onRetry={() => void endpoint.refetch()} />
        )}
        <p>
          <a href={href.webhooks}>All your endpoints</a>
        </p>
      </>
    );
  const e = endpoint.data;
  return (
    <>
      <p className="crumbs">
        <a href={href.webhooks}>Webhooks</a> /
      </p>
      <PageTitle title="Webhook endpoint">
        <span className="url">{e.url}</span>
      </PageTitle>
      <p className="lead" data-testid="endpoint-state">
        <span className={`status ${e.enabled ? 'status-active' : 'status-cancelled'}`}>{endpointState(e)}</span>
        {e.disabled_at && (
          <>
            {' '}
            since <Time iso={e.disabled_at} format={when} />.
          </>
        )}{' '}
        Created <Time iso={e.created_at} format={when} />.
        {e.failing_since && (
          <>
            {' '}
            Failing since <Time iso={e.failing_since} format={when} />.
          </>
        )}
        {e.previous_secret_until && (
          <>
            {' '}
            The previous secret also signs until <Time iso={e.previous_secret_until} format={when} />.
          </>
        )}
      </p>
      {secret && <Secret label="New signing secret" value={secret} onDone={() => setSecret(null)} />}
      <WebhookActions endpoint={e} onRotated={setSecret} />
      <WebhookDeliveries endpoint={e} />
      <WebhookSettings endpoint={e} />
    </>
  );
}
