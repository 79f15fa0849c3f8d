// Disputes (src/domain/dispute.ts): a party opens one over a contract's escrowed money, the other
// responds once, either adds evidence, the opener may withdraw. The resolution is in
// dispute-resolution.ts, the advisory recommendation in dispute-recommendation.ts. Locks follow
// docs/architecture.md §10: contract, then dispute, then milestones.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Tx } from '../../db/client.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow } from '../../db/repositories/contracts.ts';
import * as repo from '../../db/repositories/disputes.ts';
import type { DisputeRow } from '../../db/repositories/disputes.ts';
import {
  DISPUTABLE_MILESTONE_STATUSES,
  disputeTransitions,
  EVIDENCE_PER_PARTY_MAX,
  requireOpener,
  requireOtherParty,
  type DisputeAction,
  type DisputeReason,
} from '../domain/dispute.ts';
import { SETTLED_MILESTONE_STATUSES } from '../domain/milestone.ts';
import { roleOf } from '../domain/parties.ts';
import { transition } from '../domain/state-machine.ts';
import { EXTENSION_OF, inspectUpload, type UploadContentType } from '../domain/uploads.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentDispute, presentEvidence } from '../presenters/disputes.ts';
import { move as moveContract } from './contracts.ts';
import { contractEvent, disputeEvent, disputeEvidenceEvent } from './events.ts';
import { schedulePayout } from './milestones.ts';

type Ctx = Pick<Context, 'db' | 'config' | 'jobs' | 'files'>;

export const moveDispute = (dispute: DisputeRow, action: DisputeAction) =>
  transition(disputeTransitions, 'dispute', dispute.status, action);

/** The dispute as the API shows it (the evidence list only when asked for). */
export async function disputeView(ctx: Pick<Context, 'db' | 'config'>, dispute: DisputeRow, withEvidence = false) {
  const count = await repo.countEvidence(ctx.db, dispute.id);
  if (!withEvidence) return presentDispute(dispute, count);
  const evidence = (await repo.listEvidence(ctx.db, dispute.id)).map((e) => presentEvidence(e, ctx.config.publicUrl));
  return presentDispute(dispute, count, evidence);
}

/** The dispute and its contract if the caller is a party, else NOT_FOUND. */
export async function partyDispute(ctx: Pick<Context, 'db'>, actor: Actor, disputeId: string) {
  const found = await repo.getDisputeForParty(ctx.db, actor.userId, disputeId);
  if (!found) throw notFound('dispute');
  return found;
}

/** A party opens a dispute over milestones whose money is in escrow; the contract is held. */
export async function openDispute(
  ctx: Ctx,
  actor: Actor,
  contractId: string,
  input: { reason: DisputeReason; description: string; milestoneIds: string[] },
) {
  return ctx.db.transaction(async (tx) => {
    const contract = await contractsRepo.lockContractForParty(tx, actor.userId, contractId);
    if (!contract) throw notFound('contract');
    if (contract.status === 'disputed') throw conflict('this contract already has a dispute open: answer or withdraw that one');
    const step = moveContract(contract, 'dispute');
    const milestones = await contractsRepo.listMilestones(tx, [contract.id]);
    input.milestoneIds.forEach((id, i) => {
      const m = milestones.find((x) => x.id === id);
      if (!m) throw validationFailed(`body.milestone_ids[${i}]`, 'is not a milestone of this contract');
      if (!DISPUTABLE_MILESTONE_STATUSES.includes(m.status)) {
        throw new ApiError(
          'INVALID_STATE',
          `milestone ${id} is ${m.status}: a dispute concerns money in escrow (a funded milestone, or a released one not yet paid)`,
        );
      }
      if (m.refundedCents > 0) throw new ApiError('INVALID_STATE', `milestone ${id} was already divided by an earlier dispute`);
    });
    const now = new Date();
    const dispute = await repo.insertDispute(tx, {
      id: newId(),
      contractId: contract.id,
      openerUserId: actor.userId,
      openerRole: roleOf(contract, actor.userId),
      status: 'open',
      reason: input.reason,
      description: input.description.trim(),
      milestoneIds: input.milestoneIds,
      createdAt: now,
      updatedAt: now,
    });
    if (!dispute) throw conflict('this contract already has a dispute open: answer or withdraw that one');
    const held = await contractsRepo.updateContract(tx, contract.id, { status: step.to });
    await contractEvent(tx, step.event, held, actor);
    const view = presentDispute(dispute, 0);
    await disputeEvent(tx, 'dispute.opened', held, view, actor);
    return view;
  });
}

export async function getDispute(ctx: Pick<Context, 'db' | 'config'>, actor: Actor, disputeId: string, withEvidence: boolean) {
  const { dispute } = await partyDispute(ctx, actor, disputeId);
  return disputeView(ctx, dispute, withEvidence);
}

/** The disputes of the caller's contracts, newest first: `rows` holds limit + 1 (for paging), `present` shows one. */
export async function listDisputes(
  ctx: Pick<Context, 'db'>,
  actor: Actor,
  filter: { status?: DisputeRow['status']; contractId?: string; limit: number; beforeId?: string },
) {
  const rows = await repo.listDisputesForParty(ctx.db, actor.userId, filter);
  const counts = await repo.countEvidenceOf(
    ctx.db,
    rows.slice(0, filter.limit).map((d) => d.id),
  );
  return { rows, present: (d: DisputeRow) => presentDispute(d, counts.get(d.id) ?? 0) };
}

/** The party the dispute was opened against answers it, once. */
export async function respond(ctx: Ctx, actor: Actor, disputeId: string, text: string) {
  const { contract } = await partyDispute(ctx, actor, disputeId);
  return ctx.db.transaction(async (tx) => {
    const dispute = (await repo.lockDispute(tx, disputeId))!;
    requireOtherParty(dispute.openerUserId, actor.userId, 'respond to it');
    const step = moveDispute(dispute, 'respond');
    const updated = await repo.updateDispute(tx, dispute.id, { status: step.to, response: text.trim(), respondedAt: new Date() });
    const view = presentDispute(updated, await repo.countEvidence(tx, dispute.id));
    await disputeEvent(tx, step.event, contract, view, actor);
    return view;
  });
}

/**
 * Lets the contract go after its dispute (withdrawn, or its resolution settled): `completed` when
 * every milestone is settled, else `active`; payouts held meanwhile and now due are sent at once
 * (those due later still have their job). The contract must be locked by the caller.
 */
export async function releaseContract(ctx: Pick<Context, 'jobs' | 'config'>, tx: Tx, contract: ContractRow, actor: Actor | null) {
  const milestones = await contractsRepo.listMilestones(tx, [contract.id]);
  const settled = milestones.every((m) => SETTLED_MILESTONE_STATUSES.includes(m.status));
  const step = moveContract(contract, settled ? 'close_dispute_completed' : 'close_dispute_active');
  const now = new Date();
  const updated = await contractsRepo.updateContract(tx, contract.id, {
    status: step.to,
    ...(settled && !contract.completedAt ? { completedAt: now } : {}),
  });
  await contractEvent(tx, step.event, updated, actor);
  for (const m of milestones) {
    if (m.status === 'released' && (!m.payoutDueAt || m.payoutDueAt <= now)) await schedulePayout(ctx, tx, m.id, now);
  }
  return updated;
}

/** The opener withdraws: nothing is refunded or released, the contract returns. */
export async function withdraw(ctx: Ctx, actor: Actor, disputeId: string) {
  const { dispute: found, contract: before } = await partyDispute(ctx, actor, disputeId);
  requireOpener(found.openerUserId, actor.userId, 'withdraw it');
  return ctx.db.transaction(async (tx) => {
    const contract = (await contractsRepo.lockContract(tx, before.id))!;
    const dispute = (await repo.lockDispute(tx, disputeId))!;
    const step = moveDispute(dispute, 'withdraw');
    const updated = await repo.updateDispute(tx, dispute.id, { status: step.to, withdrawnAt: new Date() });
    const view = presentDispute(updated, await repo.countEvidence(tx, dispute.id));
    await disputeEvent(tx, step.event, contract, view, actor);
    await releaseContract(ctx, tx, contract, actor);
    return view;
  });
}

/** Evidence is taken while the dispute is live, up to EVIDENCE_PER_PARTY_MAX per party. */
async function addEvidence(
  ctx: Ctx,
  actor: Actor,
  disputeId: string,
  content: (tx: Tx) => Promise<{ kind: 'text'; text: string } | { kind: 'file'; fileId: string }>,
) {
  const { contract } = await partyDispute(ctx, actor, disputeId);
  return ctx.db.transaction(async (tx) => {
    const dispute = (await repo.lockDispute(tx, disputeId))!;
    if (dispute.status !== 'open' && dispute.status !== 'responded') {
      throw new ApiError('INVALID_STATE', `cannot add evidence to a dispute that is ${dispute.status}`);
    }
    if ((await repo.countEvidence(tx, dispute.id, actor.userId)) >= EVIDENCE_PER_PARTY_MAX) {
      throw conflict(`a party may add at most ${EVIDENCE_PER_PARTY_MAX} pieces of evidence to a dispute`);
    }
    const body = await content(tx);
    const row = await repo.insertEvidence(tx, {
      id: newId(),
      disputeId: dispute.id,
      authorUserId: actor.userId,
      authorRole: roleOf(contract, actor.userId),
      kind: body.kind,
      text: body.kind === 'text' ? body.text : null,
      fileId: body.kind === 'file' ? body.fileId : null,
    });
    await repo.updateDispute(tx, dispute.id, {});
    const view = presentEvidence((await repo.getEvidence(tx, dispute.id, row.id))!, ctx.config.publicUrl);
    await disputeEvidenceEvent(tx, contract, view, actor);
    return view;
  });
}

export function addTextEvidence(ctx: Ctx, actor: Actor, disputeId: string, text: string) {
  return addEvidence(ctx, actor, disputeId, async () => ({ kind: 'text', text: text.trim() }));
}

/** A file, by the upload rules every file follows (src/domain/uploads.ts), kept in the file store. */
export async function addFileEvidence(ctx: Ctx, actor: Actor, disputeId: string, bytes: Uint8Array) {
  // The file is judged first, as a JSON body is validated before the resource is looked up.
  const contentType = await inspectUpload(bytes);
  return addEvidence(ctx, actor, disputeId, async (tx) => {
    const stored = await ctx.files.put({ ownerUserId: actor.userId, purpose: 'dispute_evidence', contentType, bytes }, tx);
    return { kind: 'file', fileId: stored.key };
  });
}

export interface EvidenceDownload {
  bytes: Buffer;
  contentType: UploadContentType;
  filename: string;
}

/** An evidence file, for the contract's parties only (404 otherwise, and for a statement). */
export async function readEvidenceFile(ctx: Ctx, actor: Actor, disputeId: string, evidenceId: string): Promise<EvidenceDownload> {
  await partyDispute(ctx, actor, disputeId);
  const evidence = await repo.getEvidence(ctx.db, disputeId, evidenceId);
  const file = evidence?.fileId ? await ctx.files.get(evidence.fileId) : undefined;
  if (!file) throw notFound('evidence file');
  return { bytes: file.bytes, contentType: file.contentType, filename: `evidence-${evidenceId}.${EXTENSION_OF[file.contentType]}` };
}
