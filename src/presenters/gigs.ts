// Gigs as the API shows them (schema Gig).
import type { GigRow } from '../../db/repositories/gigs.ts';
import { isoTimestamp } from './timestamps.ts';

export function presentGig(g: GigRow) {
  return {
    id: g.id,
    client_user_id: g.clientUserId,
    title: g.title,
    description: g.description,
    scope: g.scope,
    rate_cents: g.rateCents,
    compensation_type: g.compensationType,
    compensation_min_cents: g.compensationMinCents,
    compensation_max_cents: g.compensationMaxCents,
    currency: g.currency,
    tags: g.tags,
    status: g.status,
    source: g.source,
    external_id: g.externalId,
    url: g.url,
    posted_at: isoTimestamp(g.postedAt),
    created_at: isoTimestamp(g.createdAt),
    updated_at: isoTimestamp(g.updatedAt),
  };
}
