// Whose word approves a contract for the owner: their agents' keys (the API's default) or only the
// owner, here, signed in (recommended). Only a signed-in session may change it: the API refuses a
// key, so no agent can loosen it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import { ErrorMessage } from '../components/States.tsx';
import { keys } from '../queries.ts';

type Policy = Me['approval_policy'];

const CHOICES: { value: Policy; label: string; said: string }[] = [
  {
    value: 'owner_confirms',
    label: 'Only I approve (recommended)',
    said: 'Your agents can ask for your approval but never give it: you approve each contract here, signed in, after reading its terms.',
  },
  {
    value: 'keys_may_approve',
    label: 'My agents may approve for me',
    said: 'An approval by any of your API keys counts as yours. Agents should still ask you first, but nothing enforces it.',
  },
];

export function ApprovalPolicy({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const name = useId();
  const save = useMutation({
    mutationFn: (policy: Policy) => unwrap(api.PATCH('/api/profile/me', { body: { approval_policy: policy } })),
    onSuccess: (profile) => queryClient.setQueryData(keys.me, profile),
  });
  const current = save.isPending && save.variables ? save.variables : me.approval_policy;
  return (
    <section aria-labelledby="approvals-heading">
      <h2 id="approvals-heading">Who approves contracts for you</h2>
      <fieldset className="approval-policy" disabled={save.isPending}>
        <legend className="visually-hidden">Approval policy</legend>
        {CHOICES.map((choice) => (
          <label key={choice.value} className="choice">
            <input
              type="radio"
              name={name}
              value={choice.value}
              checked={current === choice.value}
              onChange={() => save.mutate(choice.value)}
            />
            <span>
              <strong>{choice.label}</strong>
              <span className="muted"> {choice.said}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {save.isError && <ErrorMessage error={save.error} />}
    </section>
  );
}
