// Negotiations and rounds as the API shows them (schemas Negotiation and NegotiationRound).
import type { NegotiationRow, RoundRow } from '../../db/repositories/negotiations.ts';
import type { PartyRole } from '../domain/negotiation.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

export function presentRound(r: RoundRow) {
  return {
    id: r.id,
    number: r.number,
    proposed_by: r.proposerRole as PartyRole,
    proposer_user_id: r.proposerUserId,
    rate_cents: r.rateCents,
    hours_per_week: r.hoursPerWeek,
    start_date: r.startDate,
    payout_delay_days: r.payoutDelayDays,
    currency: r.currency,
    milestones: r.milestones,
    notes: r.notes,
    created_at: isoTimestamp(r.createdAt),
  };
}

/**
 * `viewer` decides the contact block: each party sees the other's contact details only once the
 * other has shared them. Events (read by both parties) pass no viewer and carry no contact details.
 */
export function presentNegotiation(
  n: NegotiationRow,
  rounds: RoundRow[],
  extra: {
    contractId: string | null;
    /** The round the contract holds: after a revise it is settled, and either party proposes next. */
    contractRoundId?: string | null;
    viewer?: { role: PartyRole; counterpartContact: string | null };
  },
) {
  const own = rounds.filter((r) => r.negotiationId === n.id);
  const latest = own[own.length - 1];
  return {
    id: n.id,
    gig_id: n.gigId,
    client_user_id: n.clientUserId,
    worker_user_id: n.workerUserId,
    status: n.status as 'open' | 'agreed' | 'cancelled',
    contract_id: extra.contractId,
    rounds: own.map(presentRound),
    // Who may act next: the party who did not propose the latest round proposes or agrees.
    awaiting:
      n.status !== 'open' || !latest || latest.id === extra.contractRoundId
        ? null
        : ((latest.proposerRole === 'client' ? 'worker' : 'client') as PartyRole),
    contact: {
      client_shared: n.clientContactSharedAt !== null,
      worker_shared: n.workerContactSharedAt !== null,
      counterpart: extra.viewer ? extra.viewer.counterpartContact : null,
    },
    agreed_at: isoTimestampOrNull(n.agreedAt),
    cancelled_at: isoTimestampOrNull(n.cancelledAt),
    created_at: isoTimestamp(n.createdAt),
    updated_at: isoTimestamp(n.updatedAt),
  };
}
