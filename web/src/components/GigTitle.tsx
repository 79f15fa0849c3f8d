// A contract's gig, by title (the contract itself carries only the gig's id; a dispute only the contract's).
import { useContract, useGigTitle } from '../queries.ts';

export function GigTitle({ gigId }: { gigId: string }) {
  const title = useGigTitle(gigId);
  if (title.data) return <>{title.data}</>;
  return <span className="muted">{title.isPending ? 'Gig…' : `Gig ${gigId.slice(0, 8)}…`}</span>;
}

/** The gig's title of a contract known by id only (read once, then kept with the contract). */
export function GigOfContract({ contractId }: { contractId: string }) {
  const contract = useContract(contractId);
  if (contract.data) return <GigTitle gigId={contract.data.gig_id} />;
  return <span className="muted">{contract.isPending ? 'Contract…' : `Contract ${contractId.slice(0, 8)}…`}</span>;
}
