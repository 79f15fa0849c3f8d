// A contract at `#/contracts/{id}` (the link the MCP server gives owners to approve): its exact
// terms, its state, and, below them, what the viewer can do with it now.
import type { Me } from '../api.ts';
import { Activity } from '../components/Activity.tsx';
import { GigTitle } from '../components/GigTitle.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading, Time } from '../components/States.tsx';
import { statusLabel, when } from '../format.ts';
import { roleIn, useContract, useDisplayName } from '../queries.ts';
import { href } from '../router.ts';
import { ContractActions } from './ContractActions.tsx';
import { ContractChanges } from './ContractChanges.tsx';
import { ContractDisputes } from './ContractDisputes.tsx';
import { ContractReviews } from './ContractReviews.tsx';
import { ContractTerms } from './ContractTerms.tsx';
import { Milestones } from './Milestones.tsx';
import { Payouts } from './Payouts.tsx';

export function ContractPage({ id, me }: { id: string; me: Me }) {
  const contract = useContract(id);
  if (contract.isPending)
    return (
      <>
        <PageTitle title="Contract">Contract</PageTitle>
        <Loading what="the contract" />
      </>
    );
  if (contract.isError)
    return (
      <>
        <PageTitle title="Contract">Contract</PageTitle>
        <ErrorMessage error={contract.error} onRetry={() => void contract.refetch()} />
        <p>
          <a href={href.contracts}>All contracts</a>
        </p>
      </>
    );
  const c = contract.data;
  const role = roleIn(c, me);
  const other = role === 'client' ? c.worker_user_id : c.client_user_id;
  return (
    <>
      <p className="crumbs">
        <a href={href.contracts}>Contracts</a> /
      </p>
      <PageTitle title="Contract">
        <GigTitle gigId={c.gig_id} />
      </PageTitle>
      <p className="lead">
        <span className={`status status-${c.status}`}>{statusLabel(c.status)}</span> You are the <strong>{role}</strong>; the{' '}
        {role === 'client' ? 'worker' : 'client'} is <Name userId={other} />. Revision <strong>{c.revision_count}</strong>.
      </p>
      {/* The contract is not refetched behind the reader's back (useContract); after identity checks
          or a payment in another tab, this brings its state up to date. */}
      <p className="muted small">
        As of <Time iso={new Date(contract.dataUpdatedAt).toISOString()} format={when} />.{' '}
        <button type="button" className="secondary" disabled={contract.isFetching} onClick={() => void contract.refetch()}>
          {contract.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      </p>
      <ContractTerms contract={c} />
      <ContractChanges contract={c} />
      <Milestones contract={c} role={role} />
      <Payouts contract={c} />
      <ContractActions contract={c} role={role} />
      <ContractDisputes contract={c} />
      <ContractReviews contract={c} />
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        <dl className="facts">
          <Fact label="Created" iso={c.created_at} />
          <Fact label="Client approved" iso={c.client_approved_at} />
          <Fact label="Worker approved" iso={c.worker_approved_at} />
          <Fact label="Active since" iso={c.activated_at} />
          <Fact label="Completed" iso={c.completed_at} />
          <Fact label="Cancelled" iso={c.cancelled_at} />
          <Fact label="Expired" iso={c.expired_at} />
        </dl>
        <p>
          <a href={href.negotiation(c.negotiation_id)}>The negotiation and its rounds</a>
        </p>
      </section>
      <Activity resourceId={c.id} asOf={contract.dataUpdatedAt} me={me} />
    </>
  );
}

function Name({ userId }: { userId: string }) {
  const name = useDisplayName(userId);
  return <strong>{name.data ?? `user ${userId.slice(0, 8)}…`}</strong>;
}

function Fact({ label, iso }: { label: string; iso: string | null }) {
  if (!iso) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <Time iso={iso} format={when} />
      </dd>
    </div>
  );
}
