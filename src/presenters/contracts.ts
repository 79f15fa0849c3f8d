// Contracts and milestones as the API shows them (schemas Contract and Milestone in openapi.yaml).
import type { ContractRow, MilestoneRow } from '../../db/repositories/contracts.ts';
import type { ContractApprovalRow } from '../../db/repositories/approvals.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';
import { termsHash, termsOf } from '../domain/terms-hash.ts';

export function presentMilestone(m: MilestoneRow) {
  return {
    id: m.id,
    contract_id: m.contractId,
    position: m.position,
    title: m.title,
    amount_cents: m.amountCents,
    currency: m.currency,
    due_date: m.dueDate,
    status: m.status,
    funded_at: isoTimestampOrNull(m.fundedAt),
    released_at: isoTimestampOrNull(m.releasedAt),
    payout_due_at: isoTimestampOrNull(m.payoutDueAt),
    paid_at: isoTimestampOrNull(m.paidAt),
    refunded_cents: m.refundedCents,
  };
}

export function presentContract(c: ContractRow, milestones: MilestoneRow[]) {
  const view = {
    id: c.id,
    negotiation_id: c.negotiationId,
    gig_id: c.gigId,
    client_user_id: c.clientUserId,
    worker_user_id: c.workerUserId,
    status: c.status as
      | 'pending_owner_approval'
      | 'pending_freelancer_kyc'
      | 'active'
      | 'completed'
      | 'disputed'
      | 'cancelled'
      | 'expired'
      | 'negotiation',
    rate_cents: c.rateCents,
    hours_per_week: c.hoursPerWeek,
    start_date: c.startDate,
    payout_delay_days: c.payoutDelayDays,
    currency: c.currency,
    milestones: milestones.filter((m) => m.contractId === c.id).map(presentMilestone),
    approval_deadline: isoTimestampOrNull(c.approvalDeadline),
    client_approved_at: isoTimestampOrNull(c.clientApprovedAt),
    worker_approved_at: isoTimestampOrNull(c.workerApprovedAt),
    client_approval_method: c.clientApprovalMethod,
    worker_approval_method: c.workerApprovalMethod,
    revision_notes: c.revisionNotes,
    revision_count: c.revisionCount,
    created_at: isoTimestamp(c.createdAt),
    updated_at: isoTimestamp(c.updatedAt),
    activated_at: isoTimestampOrNull(c.activatedAt),
    completed_at: isoTimestampOrNull(c.completedAt),
    cancelled_at: isoTimestampOrNull(c.cancelledAt),
    expired_at: isoTimestampOrNull(c.expiredAt),
  };
  return { ...view, terms_hash: termsHash(termsOf(view)) };
}

export type ContractView = ReturnType<typeof presentContract>;

/** An owner's approval of one revision, with its signed receipt (schema ContractApproval). */
export function presentApproval(a: ContractApprovalRow) {
  return {
    id: a.id,
    contract_id: a.contractId,
    revision_count: a.revisionCount,
    terms_hash: a.termsHash,
    party_role: a.partyRole,
    user_id: a.userId,
    method: a.method,
    api_key_id: a.apiKeyId,
    hosted_agent_id: a.hostedAgentId,
    approved_at: isoTimestamp(a.approvedAt),
    receipt: a.receipt,
  };
}
