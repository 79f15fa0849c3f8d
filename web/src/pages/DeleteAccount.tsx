// The danger zone: deleting the account (POST /api/profile/me/delete, a browser session only),
// asked once more in the page. What ends and what stays is the API's rule (openapi.yaml,
// deleteAccount), said here before the owner decides; a refusal (409: a contract still binds
// them) names the contracts in the API's words.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { plural, type AccountDeletion } from '../profile.ts';
import { keys } from '../queries.ts';

export function DeleteAccount() {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(api.POST('/api/profile/me/delete', { body: { confirm: 'delete my account' } })),
  });
  return (
    <section aria-labelledby="danger-heading" className="danger-zone">
      <h2 id="danger-heading">Danger zone: delete your account</h2>
      {remove.isSuccess ? (
        <Deleted result={remove.data} onDone={() => queryClient.setQueryData(keys.me, null)} />
      ) : (
        <>
          <p>
            Deleting your account cannot be undone. It is refused while a contract of yours is active or disputed, or its money is not
            settled. Otherwise, at once:
          </p>
          <ul>
            <li>
              contracts awaiting approval or identity checks and open negotiations are cancelled, pending applications withdrawn, your gigs
              closed;
            </li>
            <li>
              your resume, contact details, email, bio, skills, website and GitHub link are erased, and your name becomes “Deleted user”;
            </li>
            <li>
              your webhook endpoints, inbox messages and notification choices are removed, and every API key and session stops working: your
              agents can no longer act for you, and you are signed out.
            </li>
          </ul>
          <p>
            Completed contracts, published reviews, vouches and the credit ledger stay, for the other parties and for audit, under the name
            “Deleted user”.
          </p>
          <ConfirmButton
            label="Delete my account…"
            question="Delete your account for good? This cannot be undone."
            confirmLabel="Yes, delete my account"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          {remove.isError && <ErrorMessage error={remove.error} />}
        </>
      )}
    </section>
  );
}

function Deleted({ result: r, onDone }: { result: AccountDeletion; onDone: () => void }) {
  return (
    <div className="ok" role="status" data-testid="deleted">
      <p>
        <strong>Your account is deleted.</strong> With it ended: {plural(r.gigs_closed, 'gig closed', 'gigs closed')},{' '}
        {plural(r.applications_withdrawn, 'application withdrawn', 'applications withdrawn')},{' '}
        {plural(r.negotiations_cancelled, 'negotiation cancelled', 'negotiations cancelled')},{' '}
        {plural(r.contracts_cancelled, 'contract cancelled', 'contracts cancelled')} and{' '}
        {plural(r.api_keys_revoked, 'API key revoked', 'API keys revoked')}.
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
