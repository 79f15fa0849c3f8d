// Gigs as the API shows them (schema Gig).
import type { GigRow } from '../../db/repositories/gigs.ts';

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
    posted_at: g.postedAt.toISOString(),
    created_at: g.createdAt.toISOString(),
    updated_at: g.updatedAt.toISOString(),
  };
}
