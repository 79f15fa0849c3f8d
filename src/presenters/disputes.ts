// Disputes and their evidence as the API shows them (schemas Dispute and DisputeEvidence in openapi.yaml).
import type { DisputeRow, EvidenceWithFile } from '../../db/repositories/disputes.ts';
import type { UploadContentType } from '../domain/uploads.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

/** Said with every recommendation, wherever it is shown. */
export const ADVISORY_NOTICE =
  'Advice from a language model, not a decision: it binds nobody. The dispute is resolved only when both parties accept the same outcome.';

export const evidenceFileUrl = (publicUrl: string, disputeId: string, evidenceId: string) =>
  `${publicUrl}/api/disputes/${disputeId}/evidence/${evidenceId}/file`;

export function presentEvidence(e: EvidenceWithFile, publicUrl: string) {
  return {
    id: e.id,
    dispute_id: e.disputeId,
    author_user_id: e.authorUserId,
    author_role: e.authorRole,
    kind: e.kind,
    text: e.text,
    file: e.file
      ? {
          content_type: e.file.contentType as UploadContentType,
          size_bytes: e.file.sizeBytes,
          sha256: e.file.sha256,
          url: evidenceFileUrl(publicUrl, e.disputeId, e.id),
        }
      : null,
    created_at: isoTimestamp(e.createdAt),
  };
}

export type EvidenceView = ReturnType<typeof presentEvidence>;

export function presentDispute(d: DisputeRow, evidenceCount: number, evidence?: EvidenceView[]) {
  return {
    id: d.id,
    contract_id: d.contractId,
    status: d.status,
    reason: d.reason,
    description: d.description,
    milestone_ids: d.milestoneIds,
    opener_user_id: d.openerUserId,
    opener_role: d.openerRole,
    response: d.response,
    responded_at: isoTimestampOrNull(d.respondedAt),
    acceptances: { client: d.clientAcceptance ?? null, worker: d.workerAcceptance ?? null },
    recommendation: d.recommendation ? { advisory: true as const, notice: ADVISORY_NOTICE, ...d.recommendation } : null,
    resolution:
      d.resolution && d.resolvedAt
        ? { ...d.resolution, resolved_at: isoTimestamp(d.resolvedAt), settled_at: isoTimestampOrNull(d.settledAt) }
        : null,
    evidence_count: evidenceCount,
    ...(evidence ? { evidence } : {}),
    withdrawn_at: isoTimestampOrNull(d.withdrawnAt),
    created_at: isoTimestamp(d.createdAt),
    updated_at: isoTimestamp(d.updatedAt),
  };
}

export type DisputeView = ReturnType<typeof presentDispute>;
