// What changed since the previous revision: the contract's terms against those of the round it
// was agreed from before its latest revise. The contract does not name that round, so it is
// found from the latest `contract.revised` event: the last round proposed before that revise
// (the API refuses to agree to the round the contract already holds, so the new terms come from
// a later round); failing that, the contract as the event shows it, which still held the old terms.
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, unwrap, type Contract } from '../api.ts';
import { changesBetween, hasChanges, type Terms } from '../changes.ts';
import { ErrorMessage, Loading } from '../components/States.tsx';
import { negotiationKeys, useNegotiation } from '../negotiations.ts';
import { href } from '../router.ts';
import { changeSentences } from '../terms.ts';
import '../negotiations.css';

export function ContractChanges({ contract: c }: { contract: Contract }) {
  if (c.revision_count === 0) return null;
  if (c.status === 'negotiation')
    return (
      <section aria-labelledby="changes-heading" className="changes">
        <h2 id="changes-heading">What changed</h2>
        <p>
          Sent back to negotiation: the terms above are still those of revision {c.revision_count - 1} until the parties agree new ones in{' '}
          <a href={href.negotiation(c.negotiation_id)}>the negotiation</a>.
        </p>
      </section>
    );
  return <Changes contract={c} />;
}

function Changes({ contract: c }: { contract: Contract }) {
  const negotiation = useNegotiation(c.negotiation_id);
  const revised = useQuery({
    queryKey: negotiationKeys.revisedOf(c.id, c.revision_count),
    queryFn: async () =>
      (await unwrap(api.GET('/api/events', { params: { query: { resource_id: c.id, type: ['contract.revised'], limit: 1 } } }))).data[0],
  });
  const error = negotiation.error ?? revised.error;
  let body: ReactNode;
  if (error) body = <ErrorMessage error={error} onRetry={() => void Promise.all([negotiation.refetch(), revised.refetch()])} />;
  else if (negotiation.isPending || revised.isPending) body = <Loading what="the previous terms" />;
  else {
    const event = revised.data;
    const at = event ? new Date(event.created_at).getTime() : Number.POSITIVE_INFINITY;
    const round = negotiation.data?.rounds.filter((r) => new Date(r.created_at).getTime() < at).at(-1);
    const before: Terms | undefined = round ?? (event?.type === 'contract.revised' ? event.data : undefined);
    if (!before) body = <p className="muted">The previous terms are no longer on record.</p>;
    else {
      const changes = changesBetween(before, c);
      body = hasChanges(changes) ? (
        <ul className="change-list" data-testid="changes">
          {changeSentences(changes, before, c).map((sentence) => (
            <li key={sentence}>{sentence}</li>
          ))}
        </ul>
      ) : (
        <p>The terms are the same as before the revise.</p>
      );
      body = (
        <>
          <p className="muted small">
            Revision {c.revision_count} against revision {c.revision_count - 1}
            {round ? ` (round ${round.number})` : ''}; every round is in <a href={href.negotiation(c.negotiation_id)}>the negotiation</a>.
          </p>
          {body}
        </>
      );
    }
  }
  return (
    <section aria-labelledby="changes-heading" className="changes">
      <h2 id="changes-heading">What changed since the previous revision</h2>
      {body}
    </section>
  );
}
