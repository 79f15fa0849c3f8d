// Applications as the API shows them (schema Application).
import type { ApplicationRow } from '../../db/repositories/applications.ts';
import { isoTimestamp } from './timestamps.ts';

/** `clientUserId` is the gig's client (applications only exist for native gigs, which have one). */
export function presentApplication(a: ApplicationRow, clientUserId: string) {
  return {
    id: a.id,
    gig_id: a.gigId,
    worker_user_id: a.workerUserId,
    client_user_id: clientUserId,
    origin: a.origin,
    status: a.status,
    message: a.message,
    proposed_rate_cents: a.proposedRateCents,
    created_at: isoTimestamp(a.createdAt),
    updated_at: isoTimestamp(a.updatedAt),
  };
}
