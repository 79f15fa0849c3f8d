// What the viewer can do with a contract now: approve the terms shown (pinning their
// revision_count and terms hash, so the yes lands only on them), revise with notes, cancel, and, for the worker,
// fetch the identity-check (KYC) link.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap, type Contract } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { startAuthentication } from '@simplewebauthn/browser';
import { keys, usePasskeys } from '../queries.ts';

const REVISABLE = ['pending_owner_approval', 'pending_freelancer_kyc'];
const CANCELLABLE = ['pending_owner_approval', 'pending_freelancer_kyc', 'negotiation'];

export function useContractChanged(id: string) {
  const queryClient = useQueryClient();
  return (contract?: Contract) => {
    if (contract) queryClient.setQueryData(keys.contract(id), contract);
    void queryClient.invalidateQueries({ queryKey: keys.contracts });
    void queryClient.invalidateQueries({ queryKey: keys.unread });
  };
}

export function ContractActions({ contract: c, role }: { contract: Contract; role: 'client' | 'worker' }) {
  const approvedAt = role === 'client' ? c.client_approved_at : c.worker_approved_at;
  const canApprove = c.status === 'pending_owner_approval' && !approvedAt;
  const canRevise = REVISABLE.includes(c.status);
  const canCancel = CANCELLABLE.includes(c.status);
  const needsKyc = c.status === 'pending_freelancer_kyc' && role === 'worker';
  // The worker's approval that completes both returns the identity-check link: kept for the KYC step.
  const [connectUrl, setConnectUrl] = useState<string | null>(null);
  if (!canApprove && !canRevise && !canCancel && !needsKyc) return null;
  return (
    <section aria-labelledby="actions-heading" className="actions">
      <h2 id="actions-heading">Your decision</h2>
      {c.status === 'pending_owner_approval' && approvedAt && (
        <p className="ok">You approved this contract; it waits for the other owner's approval.</p>
      )}
      {canApprove && <Approve contract={c} onConnectUrl={setConnectUrl} />}
      {needsKyc && <Kyc contract={c} connectUrl={connectUrl} />}
      {(canRevise || canCancel) && (
        <div className="secondary-actions">
          {canRevise && <Revise contract={c} />}
          {canCancel && <Cancel contract={c} />}
        </div>
      )}
    </section>
  );
}

function Approve({ contract: c, onConnectUrl }: { contract: Contract; onConnectUrl: (url: string | null) => void }) {
  const changed = useContractChanged(c.id);
  const queryClient = useQueryClient();
  const passkeys = usePasskeys();
  const approve = useMutation({
    mutationFn: async (shown: Pick<Contract, 'revision_count' | 'terms_hash'>) => {
      // With a passkey registered, the approval is signed with it: a challenge bound to these terms.
      let passkey: Awaited<ReturnType<typeof startAuthentication>> | undefined;
      if ((passkeys.data ?? []).length > 0) {
        const challenge = await unwrap(api.POST('/api/contracts/{id}/approval-challenge', { params: { path: { id: c.id } } }));
        passkey = await startAuthentication({ optionsJSON: challenge.options as never });
      }
      return unwrap(
        api.POST('/api/contracts/{id}/approve', {
          params: { path: { id: c.id } },
          body: { revision_count: shown.revision_count, terms_hash: shown.terms_hash, ...(passkey ? { passkey: passkey as never } : {}) },
        }),
      );
    },
    onSuccess: (result) => {
      // A signed-in owner's approval is never the 202 of a key that must ask: this is the approval.
      if (!('contract' in result)) return changed();
      onConnectUrl(result.connect_url);
      changed(result.contract);
    },
    // Refused (e.g. revised since this page loaded): show the contract as it is now, with the reason.
    onError: () => void queryClient.invalidateQueries({ queryKey: keys.contract(c.id) }),
  });
  return (
    <div className="approve">
      <p>
        Approving binds you to the terms above, <strong>revision {c.revision_count}</strong> (terms hash{' '}
        <code title={c.terms_hash}>{c.terms_hash.slice(0, 12)}…</code>). If they change before your approval arrives, it is refused and
        nothing is recorded. You get a signed receipt of your approval.
        {(passkeys.data ?? []).length > 0 && ' Your passkey confirms it.'}
      </p>
      <button type="button" className="primary" disabled={approve.isPending} onClick={() => approve.mutate(c)}>
        {approve.isPending ? 'Approving…' : `Approve these terms (revision ${c.revision_count})`}
      </button>
      {approve.isError && (
        <>
          <ErrorMessage error={approve.error} />
          <p className="notice">The contract above is shown as it is now. Read its terms again before deciding.</p>
        </>
      )}
    </div>
  );
}

function Revise({ contract: c }: { contract: Contract }) {
  const changed = useContractChanged(c.id);
  const [open, setOpen] = useState(false);
  const [notes, setNotes] = useState('');
  const notesId = useId();
  const revise = useMutation({
    mutationFn: () => unwrap(api.POST('/api/contracts/{id}/revise', { params: { path: { id: c.id } }, body: { notes: notes.trim() } })),
    onSuccess: (contract) => {
      setOpen(false);
      setNotes('');
      changed(contract);
    },
  });
  if (!open)
    return (
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Ask for changes…
      </button>
    );
  return (
    <form
      className="revise"
      onSubmit={(e) => {
        e.preventDefault();
        revise.mutate();
      }}
    >
      <label htmlFor={notesId}>What should change? The contract goes back to negotiation; both approvals are cleared.</label>
      <textarea id={notesId} required maxLength={5000} rows={4} value={notes} onChange={(e) => setNotes(e.target.value)} />
      <div className="row">
        <button type="submit" className="primary" disabled={revise.isPending || !notes.trim()}>
          {revise.isPending ? 'Sending…' : 'Send back to negotiation'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Never mind
        </button>
      </div>
      {revise.isError && <ErrorMessage error={revise.error} />}
    </form>
  );
}

function Cancel({ contract: c }: { contract: Contract }) {
  const changed = useContractChanged(c.id);
  const cancel = useMutation({
    mutationFn: () => unwrap(api.POST('/api/contracts/{id}/cancel', { params: { path: { id: c.id } } })),
    onSuccess: (contract) => changed(contract),
  });
  return (
    <>
      <ConfirmButton
        label="Cancel contract…"
        question="Cancel this contract and end its negotiation?"
        confirmLabel="Yes, cancel it"
        busy={cancel.isPending}
        onConfirm={() => cancel.mutate()}
      />
      {cancel.isError && <ErrorMessage error={cancel.error} />}
    </>
  );
}

function Kyc({ contract: c, connectUrl }: { contract: Contract; connectUrl: string | null }) {
  const link = useMutation({
    mutationFn: () => unwrap(api.GET('/api/contracts/{id}/connect-link', { params: { path: { id: c.id } } })),
  });
  const url = link.data?.connect_url ?? connectUrl;
  return (
    <div className="kyc">
      <p>Both owners approved. Complete the payment provider's identity checks (KYC) so the contract starts and you can be paid.</p>
      {!url && (
        <button type="button" className="primary" disabled={link.isPending} onClick={() => link.mutate()}>
          {link.isPending ? 'Getting your link…' : 'Get my identity-check link'}
        </button>
      )}
      {url && <KycLink url={url} sandbox={link.data?.provider === 'sandbox'} />}
      {link.isError && <ErrorMessage error={link.error} />}
    </div>
  );
}

function KycLink({ url, sandbox }: { url: string; sandbox?: boolean }) {
  return (
    <p className="ok">
      <a className="button" href={url} target="_blank" rel="noopener">
        Complete identity checks{sandbox ? ' (sandbox)' : ''}
      </a>{' '}
      <span className="muted">
        Opens in a new tab. The link is yours alone and short-lived; get a new one here when it has expired. When you are done, refresh this
        contract.
      </span>
    </p>
  );
}
