// What an owner can do with an endpoint: send a test message (the attempt's outcome shown), disable
// or enable it, rotate its signing secret (the new one shown once) and delete it; the last two
// confirmed.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { href } from '../router.ts';
import { webhookKeys, type WebhookDelivery, type WebhookEndpoint } from '../webhooks.ts';

export function WebhookActions({ endpoint: e, onRotated }: { endpoint: WebhookEndpoint; onRotated: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const path = { id: e.id };
  const changed = (after?: WebhookEndpoint) => {
    if (after) queryClient.setQueryData(webhookKeys.endpoint(e.id), after);
    void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
  };
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/webhooks/{id}/test', { params: { path } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(e.id) }),
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => unwrap(api.PATCH('/api/webhooks/{id}', { params: { path }, body: { enabled } })),
    onSuccess: changed,
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/webhooks/{id}/rotate-secret', { params: { path } })),
    onSuccess: ({ secret, ...after }) => {
      onRotated(secret);
      changed(after);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/webhooks/{id}', { params: { path } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: webhookKeys.endpoint(e.id) });
      void queryClient.invalidateQueries({ queryKey: webhookKeys.list });
      window.location.hash = href.webhooks;
    },
  });
  const error = test.error ?? toggle.error ?? rotate.error ?? remove.error;
  return (
    <section aria-labelledby="endpoint-actions-heading">
      <h2 id="endpoint-actions-heading">Actions</h2>
      <div className="secondary-actions">
        <button type="button" className="primary" disabled={test.isPending} onClick={() => test.mutate()}>
          {test.isPending ? 'Sending…' : 'Send test event'}
        </button>
        {e.enabled ? (
          <button type="button" className="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate(false)}>
            Disable
          </button>
        ) : (
          <button type="button" className="secondary" disabled={toggle.isPending} onClick={() => toggle.mutate(true)}>
            Enable
          </button>
        )}
        <ConfirmButton
          label="Rotate secret"
          question="Rotate the signing secret? The current one keeps signing beside the new one for 24 hours."
          confirmLabel="Yes, rotate"
          busy={rotate.isPending}
          onConfirm={() => rotate.mutate()}
        />
        <ConfirmButton
          label="Delete endpoint"
          question="Delete this endpoint and its delivery history? This cannot be undone."
          confirmLabel="Yes, delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      {test.data && <TestOutcome delivery={test.data} />}
      {error && <ErrorMessage error={error} />}
    </section>
  );
}

function TestOutcome({ delivery: d }: { delivery: WebhookDelivery }) {
  const answer = d.status_code === null ? 'no answer' : `HTTP ${d.status_code}`;
  return (
    <p className={d.succeeded ? 'ok' : 'notice'} role="status" data-testid="test-outcome">
      {d.succeeded ? 'Test event delivered' : 'Test event not delivered'}: {answer} in {d.duration_ms} ms
      {d.error && <> ({d.error})</>}.
    </p>
  );
}
