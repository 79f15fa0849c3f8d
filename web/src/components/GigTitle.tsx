// A contract's gig, by title (the contract itself carries only the gig's id).
import { useGigTitle } from '../queries.ts';

export function GigTitle({ gigId }: { gigId: string }) {
  const title = useGigTitle(gigId);
  if (title.data) return <>{title.data}</>;
  return <span className="muted">{title.isPending ? 'Gig…' : `Gig ${gigId.slice(0, 8)}…`}</span>;
}
