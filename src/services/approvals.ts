// Approvals bound to the terms: the terms hash of a contract, what the owner saw, how the actor
// approves, and the approval's record with its signed receipt (src/services/receipts.ts).
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import * as approvalsRepo from '../../db/repositories/approvals.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow, MilestoneRow } from '../../db/repositories/contracts.ts';
import type { ApprovalMethod } from '../../db/schema/column-values.ts';
import type { PartyRole } from '../domain/negotiation.ts';
import { termsHash, termsOf } from '../domain/terms-hash.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentContract } from '../presenters/contracts.ts';
import { signReceipt, type ReceiptSigner } from './receipts.ts';

/** How an approval is recorded: by whom (their role), how, and the key its receipt is signed with. */
export interface ApprovalPlan {
  role: PartyRole;
  method: ApprovalMethod;
  signer: ReceiptSigner;
}

/** The terms hash of a contract as it stands (src/domain/terms-hash.ts). */
export function contractTermsHash(contract: ContractRow, milestones: MilestoneRow[]): string {
  return termsHash(termsOf(presentContract(contract, milestones)));
}

/** How the actor approves: by the API key they came with, else in their signed-in session. */
export function approvalMethodOf(actor: Actor): ApprovalMethod {
  return actor.apiKeyId ? 'api_key' : 'session';
}

/** What the owner saw when they said yes: the revision and the terms hash, each optional. */
export interface SeenTerms {
  /** The terms hash a verified passkey assertion was bound to (src/services/passkeys.ts): the approval is by passkey, on those terms. */
  passkeyTermsHash?: string | undefined;
  revisionCount?: number | undefined;
  termsHash?: string | undefined;
}

/** The approval's record and its signed receipt, in the approval's transaction. */
export async function recordApproval(
  ctx: Context,
  tx: Executor,
  actor: Actor,
  plan: ApprovalPlan,
  approval: { contract: ContractRow; termsHash: string; approvedAt: Date },
) {
  const id = newId();
  const { contract, termsHash: hash, approvedAt } = approval;
  const receipt = await signReceipt(
    plan.signer,
    ctx.config.publicUrl,
    { id, userId: actor.userId, approvedAt },
    {
      contract_id: contract.id,
      revision_count: contract.revisionCount,
      terms_hash: hash,
      party_role: plan.role,
      method: plan.method,
      api_key_id: actor.apiKeyId,
      hosted_agent_id: actor.hostedAgentId,
      approved_at: approvedAt.toISOString(),
    },
  );
  return approvalsRepo.insertApproval(tx, {
    id,
    contractId: contract.id,
    revisionCount: contract.revisionCount,
    termsHash: hash,
    partyRole: plan.role,
    userId: actor.userId,
    method: plan.method,
    apiKeyId: actor.apiKeyId,
    hostedAgentId: actor.hostedAgentId,
    receipt,
    approvedAt,
  });
}

/**
 * The last checks before a party's approval (or request for it), in its transaction: this party has
 * not approved yet, and the terms are the ones the owner saw (when named). Returns the terms hash.
 */
export async function requireUnapprovedTerms(tx: Executor, contract: ContractRow, role: PartyRole, seenTermsHash: string | undefined) {
  if ((role === 'client' ? contract.clientApprovedAt : contract.workerApprovedAt) !== null)
    throw conflict(`you already approved this contract as its ${role}`);
  const hash = contractTermsHash(contract, await contractsRepo.listMilestones(tx, [contract.id]));
  if (seenTermsHash !== undefined) requireSeenTerms(hash, seenTermsHash);
  return hash;
}

/** A contract's approvals with their receipts, for its parties. */
export async function listApprovals(ctx: Context, actor: Actor, contractId: string) {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  return approvalsRepo.listApprovalsForParty(ctx.db, actor.userId, contractId);
}

/** An approval names the terms it is for: changed since, it is refused. */
export function requireSeenTerms(current: string, seen: string): void {
  if (seen === current) return;
  throw new ApiError(
    'INVALID_STATE',
    `the contract's terms changed since terms_hash ${seen}: they hash to ${current} now, ` +
      'terms your owner has not approved; show them the current terms first',
  );
}

/** An approval names the terms it is for: revised and agreed again since, it is refused. */
export function requireSeenRevision(contract: ContractRow, revisionCount: number | undefined): void {
  if (revisionCount === undefined || revisionCount === contract.revisionCount) return;
  throw new ApiError(
    'INVALID_STATE',
    `the contract was revised since revision_count ${revisionCount}: it is at ${contract.revisionCount}, ` +
      'with terms your owner has not approved; show them the current terms first',
  );
}
