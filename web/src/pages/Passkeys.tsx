// The owner's passkeys: add one (the browser's own passkey dialog, through @simplewebauthn/browser),
// see them, remove them. Once the owner has one, approving a contract in this dashboard needs it.
import { startRegistration } from '@simplewebauthn/browser';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { when } from '../format.ts';
import { keys, usePasskeys } from '../queries.ts';

export function Passkeys() {
  const queryClient = useQueryClient();
  const passkeys = usePasskeys();
  const nameId = useId();
  const [name, setName] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.passkeys });
  const add = useMutation({
    mutationFn: async (label: string) => {
      const { options } = await unwrap(api.POST('/api/passkeys/registration-options'));
      const credential = await startRegistration({ optionsJSON: options as never });
      return unwrap(api.POST('/api/passkeys', { body: { name: label, credential: credential as never } }));
    },
    onSuccess: () => {
      setName('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/passkeys/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const list = passkeys.data ?? [];
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="muted">
        With a passkey, approving a contract needs it as well as this sign-in: someone who took over your session still cannot bind you.
      </p>
      {passkeys.isError && <ErrorMessage error={passkeys.error} />}
      {list.length > 0 ? (
        <ul className="passkeys">
          {list.map((p) => (
            <li key={p.id}>
              <strong>{p.name}</strong> <span className="muted">added {when(p.created_at)}</span>{' '}
              <ConfirmButton
                label="Remove"
                ariaLabel={`Remove ${p.name}`}
                question={`Remove the passkey ${p.name}?`}
                confirmLabel="Yes, remove it"
                busy={remove.isPending}
                onConfirm={() => remove.mutate(p.id)}
              />
            </li>
          ))}
        </ul>
      ) : (
        passkeys.isSuccess && <p>No passkey yet: approving needs only your sign-in.</p>
      )}
      <form
        className="add-passkey"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate(name.trim());
        }}
      >
        <label htmlFor={nameId}>Name of the new passkey</label>
        <input id={nameId} value={name} maxLength={100} placeholder="e.g. Laptop" onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={add.isPending || name.trim() === ''}>
          {add.isPending ? 'Adding…' : 'Add a passkey'}
        </button>
      </form>
      {add.isError && <ErrorMessage error={add.error} />}
      {remove.isError && <ErrorMessage error={remove.error} />}
    </section>
  );
}
