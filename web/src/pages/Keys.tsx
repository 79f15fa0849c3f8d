// API keys: each key is an agent acting for the owner. Create (the secret shown once), revoke, rotate.
// Beside them, the grants to OAuth clients (MCP clients the owner allowed): listed with their scopes, revocable.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { allPages, api, unwrap, type ApiKey } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Secret } from '../components/Secret.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { when } from '../format.ts';
import { keys } from '../queries.ts';

export function Keys() {
  const list = useQuery({
    queryKey: keys.apiKeys,
    queryFn: () => allPages((cursor) => unwrap(api.GET('/api/keys', { params: { query: { limit: 100, cursor } } }))),
  });
  const [secret, setSecret] = useState<{ label: string; key: string } | null>(null);
  return (
    <>
      <PageTitle title="API keys">API keys</PageTitle>
      <p className="muted">
        Each key is an agent acting for you. Agents send it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>x-api-key</code>. A
        key's secret is shown once, when it is created or rotated. Applications you allowed to connect to gigmarket's MCP endpoint (OAuth
        grants) are listed here too, with what you granted: revoke one to end its access at once.
      </p>
      {secret && <Secret label={secret.label} value={secret.key} onDone={() => setSecret(null)} />}
      <CreateKey onCreated={(name, key) => setSecret({ label: `Key “${name}”`, key })} />
      <h2>Your keys</h2>
      {list.isPending && <Loading what="your keys" />}
      {list.isError && <ErrorMessage error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && list.data.length === 0 && <Empty>No keys yet. Create one above for your first agent.</Empty>}
      {list.data && list.data.length > 0 && (
        <div className="table-wrap">
          <table data-testid="keys">
            <caption className="visually-hidden">Your API keys, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Agent</th>
                <th scope="col">Approves</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((k) => (
                <KeyRow key={k.id} apiKey={k} onRotated={(name, key) => setSecret({ label: `New key for “${name}”`, key })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (name: string, key: string) => void }) {
  const queryClient = useQueryClient();
  const nameId = useId();
  const agentId = useId();
  const [name, setName] = useState('');
  const [agent, setAgent] = useState('');
  const [mayApprove, setMayApprove] = useState(true);
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/keys', { body: { name: name.trim(), hosted_agent_id: agent.trim() || null, may_approve: mayApprove } })),
    onSuccess: (created) => {
      setName('');
      setAgent('');
      setMayApprove(true);
      onCreated(created.name, created.key);
      void queryClient.invalidateQueries({ queryKey: keys.apiKeys });
    },
  });
  return (
    <form
      className="create-key"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <h2>Create a key</h2>
      <div className="fields">
        <div>
          <label htmlFor={nameId}>Name</label>
          <input
            id={nameId}
            required
            maxLength={100}
            placeholder="e.g. research agent"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div>
          <label htmlFor={agentId}>Hosted agent id (optional)</label>
          <input id={agentId} maxLength={128} value={agent} onChange={(e) => setAgent(e.target.value)} />
        </div>
      </div>
      <label className="choice">
        <input type="checkbox" checked={mayApprove} onChange={(e) => setMayApprove(e.target.checked)} /> This key may approve contracts for
        me (unchecked: it can only ask me; under “Only I approve” no key approves)
      </label>
      <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </button>
      {create.isError && <ErrorMessage error={create.error} />}
    </form>
  );
}

function KeyRow({ apiKey: k, onRotated }: { apiKey: ApiKey; onRotated: (name: string, key: string) => void }) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.apiKeys });
  const path = { id: k.id };
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/keys/{id}/rotate', { params: { path } })),
    onSuccess: (created) => {
      onRotated(created.name, created.key);
      refresh();
    },
  });
  const revoke = useMutation({ mutationFn: () => unwrap(api.POST('/api/keys/{id}/revoke', { params: { path } })), onSuccess: refresh });
  const status = k.revoked_at ? `${k.replaced_by_id ? 'Rotated' : 'Revoked'}, ` : 'Active';
  return (
    <tr>
      <th scope="row">{k.name}</th>
      <td>
        {k.scopes ? (
          <span>
            OAuth grant: <span className="muted">{k.scopes.join(', ')}</span>
          </span>
        ) : (
          <code>{k.prefix}…</code>
        )}
      </td>
      <td>{k.oauth_client_id ? <code className="client-id">{k.oauth_client_id}</code> : (k.hosted_agent_id ?? '—')}</td>
      <td>{k.may_approve ? 'Yes' : 'Only asks'}</td>
      <td>
        <Time iso={k.created_at} format={when} />
      </td>
      <td>{k.last_used_at ? <Time iso={k.last_used_at} format={when} /> : 'Never'}</td>
      <td className={k.revoked_at ? 'muted' : undefined}>
        {status}
        {k.revoked_at && <Time iso={k.revoked_at} format={when} />}
      </td>
      <td>
        {!k.revoked_at && (
          <div className="row">
            {/* A grant has no secret to rotate: the client asks again. */}
            {!k.oauth_client_id && (
              <ConfirmButton
                label="Rotate"
                ariaLabel={`Rotate ${k.name}`}
                question={`Rotate “${k.name}”? The current key stops working at once.`}
                confirmLabel="Yes, rotate"
                busy={rotate.isPending}
                onConfirm={() => rotate.mutate()}
              />
            )}
            <ConfirmButton
              label="Revoke"
              ariaLabel={`Revoke ${k.name}`}
              question={
                k.oauth_client_id
                  ? `Revoke the grant to “${k.name}”? Its tokens stop working at once.`
                  : `Revoke “${k.name}”? It stops working at once.`
              }
              confirmLabel="Yes, revoke"
              busy={revoke.isPending}
              onConfirm={() => revoke.mutate()}
            />
          </div>
        )}
        {(rotate.isError || revoke.isError) && <ErrorMessage error={rotate.error ?? revoke.error} />}
      </td>
    </tr>
  );
}
