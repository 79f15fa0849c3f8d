// Contracts after agreement (docs/architecture.md §5): both owners approve, the worker passes KYC, the contract
// becomes active. Each move locks the contract row, so concurrent approvals, revises and the
// expiry job have exactly one outcome, and writes its event in the same transaction.
import type { Actor } from '../actor.ts';
import type { Executor } from '../../db/client.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow } from '../../db/repositories/contracts.ts';
import * as negotiationsRepo from '../../db/repositories/negotiations.ts';
import * as accountsRepo from '../../db/repositories/payment-accounts.ts';
import * as usersRepo from '../../db/repositories/users.ts';
import * as apiKeysRepo from '../../db/repositories/api-keys.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import { transition } from '../domain/state-machine.ts';
import { contractTransitions, type ContractAction, type ContractStatus } from '../domain/contract.ts';
import { negotiationTransitions } from '../domain/negotiation.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { requireRole, roleOf } from '../domain/parties.ts';
import { contractEvent, negotiationEvent } from './events.ts';
import { presentContract } from '../presenters/contracts.ts';
import type { Context } from '../context.ts';
import { callNow, type Outside } from '../outside.ts';
import * as approvals from './approvals.ts';
import { receiptSigner } from './receipts.ts';

export function move(contract: ContractRow, action: ContractAction) {
  return transition(contractTransitions, 'contract', contract.status, action);
}

/** The worker's provider account, created on first need (idempotent at the provider). */
async function ensureWorkerAccount(ctx: Context, workerUserId: string, outside: Outside = callNow) {
  const existing = await accountsRepo.getPaymentAccount(ctx.db, workerUserId, ctx.payments.name);
  if (existing) return existing;
  const { accountId } = await outside('account', () => ctx.payments.createConnectedAccount({ userId: workerUserId }));
  return accountsRepo.savePaymentAccount(ctx.db, workerUserId, ctx.payments.name, accountId);
}

async function onboardingLink(ctx: Context, accountId: string, contractId: string) {
  const { url } = await ctx.payments.createOnboardingLink({
    accountId,
    refreshUrl: `${ctx.config.publicUrl}/connect/refresh?contract_id=${contractId}`,
    returnUrl: `${ctx.config.publicUrl}/connect/return?contract_id=${contractId}`,
  });
  return url;
}

/**
 * What an approval needs before its transaction: the key its receipt is signed with and the
 * worker's onboarding link, when this may be the final approval.
 */
export interface ApprovalPlan extends approvals.ApprovalPlan {
  contractId: string;
  revisionCount: number | undefined;
  termsHash: string | undefined;
  /** The link for a worker who still has to pass KYC; null when verified; undefined when not made. */
  link: string | null | undefined;
}

/**
 * An approval's outside step: when the worker approves after the client, the worker's provider
 * account and onboarding link are made before anything is written, so a provider failure
 * changes nothing.
 */
export async function planApproval(
  ctx: Context,
  actor: Actor,
  contractId: string,
  seen: approvals.SeenTerms = {},
  outside: Outside = callNow,
): Promise<ApprovalPlan> {
  const before = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!before) throw notFound('contract');
  const role = roleOf(before, actor.userId);
  if (before.status === 'pending_owner_approval') {
    approvals.requireSeenRevision(before, seen.revisionCount);
    if (seen.termsHash !== undefined)
      approvals.requireSeenTerms(
        approvals.contractTermsHash(before, await contractsRepo.listMilestones(ctx.db, [before.id])),
        seen.termsHash,
      );
  }
  let termsHash = seen.termsHash;
  if (seen.passkeyTermsHash !== undefined) {
    if (termsHash !== undefined) approvals.requireSeenTerms(seen.passkeyTermsHash, termsHash);
    termsHash = seen.passkeyTermsHash;
  }
  const signer = await receiptSigner(ctx.db);
  const otherApproved = role === 'client' ? before.workerApprovedAt : before.clientApprovedAt;
  let link: string | null | undefined;
  if (role === 'worker' && before.status === 'pending_owner_approval' && otherApproved) {
    const account = await ensureWorkerAccount(ctx, before.workerUserId, outside);
    link = account.verifiedAt !== null ? null : await outside('link', () => onboardingLink(ctx, account.accountId, before.id));
  }
  return {
    contractId,
    role,
    revisionCount: seen.revisionCount,
    termsHash,
    method: seen.passkeyTermsHash !== undefined ? 'passkey' : approvals.approvalMethodOf(actor),
    signer,
    link,
  };
}

/**
 * Whether the actor's key may approve for its owner: the key allows it (may_approve) and the owner's
 * policy is keys_may_approve. `lock` holds the owner's row (FOR SHARE) until the caller commits.
 */
export async function keysMayApprove(db: Executor, actor: Actor, lock = false): Promise<boolean> {
  if (actor.apiKeyId !== null && !(await apiKeysRepo.keyMayApprove(db, actor.apiKeyId))) return false;
  return (await usersRepo.approvalPolicyOf(db, actor.userId, lock)) !== 'owner_confirms';
}

/** The owner chose owner_confirms after this key's approval was planned: it becomes a request instead. */
export class ApprovalNeedsOwner extends Error {
  constructor() {
    super("the owner's approval policy changed meanwhile: the key's approval must become a request");
    this.name = 'ApprovalNeedsOwner';
  }
}

/** The worker's approval turned out final, but its plan has no link: the client approved meanwhile. Plan again. */
export class ApprovalNeedsLink extends Error {
  constructor() {
    super('the other party approved meanwhile: the approval needs the onboarding link');
    this.name = 'ApprovalNeedsLink';
  }
}

/**
 * An owner's approval (by session or key, counted the same). The second approval moves the
 * contract to pending_freelancer_kyc — or straight on to active when the worker is already
 * verified — and, when that approval is the worker's, returns the onboarding link if the worker
 * still has to pass KYC. The link is the worker's alone (as GET connect-link is): whoever opens it
 * completes the worker's identity checks and names the bank account payouts go to.
 */
export async function approve(ctx: Context, actor: Actor, plan: ApprovalPlan) {
  const { contractId, role } = plan;
  const result = await ctx.db.transaction(async (tx) => {
    const before = await contractsRepo.getContractForParty(tx, actor.userId, contractId);
    if (!before) throw notFound('contract');
    // The worker's account first, then the contract: the order the KYC webhook locks them in
    // (workerVerified, below), so a verification committing meanwhile is seen, and no deadlock.
    const account = await accountsRepo.lockPaymentAccount(tx, before.workerUserId, ctx.payments.name);
    // The negotiation between them, in the lock order: a second update of the contract in this
    // transaction re-checks its foreign key (Postgres does when the row's version is our own),
    // which takes a share lock on the negotiation; a revise holding the negotiation and waiting
    // for the contract would otherwise deadlock with us.
    await negotiationsRepo.lockNegotiation(tx, before.negotiationId);
    const contract = await contractsRepo.lockContractForParty(tx, actor.userId, contractId);
    if (!contract) throw notFound('contract');
    // Held until commit: the owner's change of policy waits for this approval, or this one sees it.
    if (plan.method === 'api_key' && !(await keysMayApprove(tx, actor, true))) throw new ApprovalNeedsOwner();
    const step = move(contract, 'approve');
    approvals.requireSeenRevision(contract, plan.revisionCount);
    if (contract.approvalDeadline && contract.approvalDeadline.getTime() <= Date.now()) {
      // Past the deadline: expire it here (the job may not have run yet) rather than approve it.
      await expireLocked(tx, contract, new Date());
      return { contract, final: false, expired: true };
    }
    const hash = await approvals.requireUnapprovedTerms(tx, contract, role, plan.termsHash);
    const approvedAt = new Date();
    let updated = await contractsRepo.updateContract(
      tx,
      contract.id,
      role === 'client'
        ? { clientApprovedAt: approvedAt, clientApprovalMethod: plan.method }
        : { workerApprovedAt: approvedAt, workerApprovalMethod: plan.method },
    );
    await approvals.recordApproval(ctx, tx, actor, plan, { contract: updated, termsHash: hash, approvedAt });
    await contractEvent(tx, step.event, updated, actor);
    if (!updated.clientApprovedAt || !updated.workerApprovedAt) return { contract: updated, final: false, expired: false };
    const kyc = move(updated, 'complete_approval');
    updated = await contractsRepo.updateContract(tx, contract.id, { status: kyc.to });
    await contractEvent(tx, kyc.event, updated, actor);
    if (account?.verifiedAt) {
      const active = move(updated, 'verify_worker');
      updated = await contractsRepo.updateContract(tx, contract.id, { status: active.to, activatedAt: new Date() });
      await contractEvent(tx, active.event, updated, null);
    } else if (role === 'worker' && plan.link === undefined) {
      throw new ApprovalNeedsLink(); // rolls this transaction back
    }
    return { contract: updated, final: true, expired: false };
  });
  if (result.expired) throw new ApiError('INVALID_STATE', 'the approval deadline has passed: the contract is expired');
  const connectUrl = role === 'worker' && result.final && result.contract.status === 'pending_freelancer_kyc' ? (plan.link ?? null) : null;
  return { contract: result.contract, connectUrl };
}

/** A party sends the contract back to negotiation with notes; approvals are cleared. */
export async function revise(ctx: Context, actor: Actor, contractId: string, notes: string) {
  try {
    return await reviseLocked(ctx, actor, contractId, notes);
  } catch (err) {
    // Only a race can get here (starting a negotiation checks for a revisable contract first).
    if (isUniqueViolation(err, 'negotiations_open_key'))
      throw conflict('another negotiation between these parties on this gig is open: cancel it first');
    throw err;
  }
}

/**
 * Locks the contract's negotiation, then the contract: the order agree and cancelNegotiation use
 * too, so that concurrent moves on the pair queue up instead of deadlocking.
 */
async function lockPair(tx: Executor, actor: Actor, contractId: string) {
  const found = await contractsRepo.getContractForParty(tx, actor.userId, contractId);
  if (!found) throw notFound('contract');
  const negotiation = (await negotiationsRepo.lockNegotiation(tx, found.negotiationId))!;
  const contract = (await contractsRepo.lockContractForParty(tx, actor.userId, contractId))!;
  return { negotiation, contract };
}

async function reviseLocked(ctx: Context, actor: Actor, contractId: string, notes: string) {
  return ctx.db.transaction(async (tx) => {
    const { negotiation, contract } = await lockPair(tx, actor, contractId);
    const step = move(contract, 'revise');
    const milestones = await contractsRepo.listMilestones(tx, [contract.id]);
    if (milestones.some((m) => m.status !== 'pending'))
      throw new ApiError('INVALID_STATE', 'a milestone of this contract is already funded; it cannot be revised');
    const updated = await contractsRepo.updateContract(tx, contract.id, {
      status: step.to,
      revisionNotes: notes,
      revisionCount: contract.revisionCount + 1,
      clientApprovedAt: null,
      workerApprovedAt: null,
      clientApprovalMethod: null,
      workerApprovalMethod: null,
      approvalDeadline: null,
    });
    await contractEvent(tx, step.event, updated, actor);
    const reopen = transition(negotiationTransitions, 'negotiation', negotiation.status, 'reopen');
    const reopened = await negotiationsRepo.setNegotiationStatus(tx, negotiation.id, reopen.to, { agreedAt: null });
    await negotiationEvent(tx, reopen.event, reopened, actor);
    return updated;
  });
}

/** A party cancels a contract that has not become binding; its negotiation ends with it. */
export async function cancel(ctx: Context, actor: Actor, contractId: string) {
  return ctx.db.transaction(async (tx) => {
    const { negotiation, contract } = await lockPair(tx, actor, contractId);
    const step = move(contract, 'cancel');
    const updated = await contractsRepo.updateContract(tx, contract.id, { status: step.to, cancelledAt: new Date() });
    await contractEvent(tx, step.event, updated, actor);
    const end = transition(negotiationTransitions, 'negotiation', negotiation.status, 'end_with_contract');
    const ended = await negotiationsRepo.setNegotiationStatus(tx, negotiation.id, end.to, { cancelledAt: new Date() });
    await negotiationEvent(tx, end.event, ended, actor);
    return updated;
  });
}

/** The worker's onboarding link, only while the contract waits for their KYC. */
export async function connectLink(ctx: Context, actor: Actor, contractId: string) {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  requireRole(contract, actor.userId, 'worker', 'fetch the onboarding link');
  if (contract.status !== 'pending_freelancer_kyc') {
    throw new ApiError(
      'INVALID_STATE',
      `the onboarding link is only available while the contract is pending_freelancer_kyc; it is ${contract.status}`,
    );
  }
  const account = await ensureWorkerAccount(ctx, contract.workerUserId);
  return { url: await onboardingLink(ctx, account.accountId, contract.id), accountId: account.accountId };
}

/**
 * The provider says the worker's account is verified (a webhook, or the sandbox's onboarding
 * page): every contract of theirs waiting for KYC becomes active. Safe to call repeatedly.
 */
export async function workerVerified(tx: Executor, provider: string, accountId: string): Promise<ContractRow[]> {
  await accountsRepo.markAccountVerified(tx, provider, accountId);
  const account = await accountsRepo.findPaymentAccountByAccountId(tx, provider, accountId);
  if (!account) return [];
  const waiting = await contractsRepo.lockWaitingForKyc(tx, account.userId);
  const activated: ContractRow[] = [];
  for (const contract of waiting) {
    const step = move(contract, 'verify_worker');
    const updated = await contractsRepo.updateContract(tx, contract.id, { status: step.to, activatedAt: new Date() });
    await contractEvent(tx, step.event, updated, null);
    activated.push(updated);
  }
  return activated;
}

async function expireLocked(tx: Executor, contract: ContractRow, now: Date) {
  const step = move(contract, 'expire');
  const updated = await contractsRepo.updateContract(tx, contract.id, { status: step.to, expiredAt: now });
  await contractEvent(tx, step.event, updated, null);
}

/** The scheduled expiry: contracts past their approval deadline expire, each once. */
export async function expireOverdue(ctx: Pick<Context, 'db'>, now = new Date(), batch = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await ctx.db.transaction(async (tx) => {
      // SKIP LOCKED: a contract being approved right now is left to that approval; if the approval
      // wins, the contract is no longer pending; if it loses, the next run expires it.
      const due = await contractsRepo.lockOverdueApprovals(tx, now, batch);
      for (const contract of due) await expireLocked(tx, contract, now);
      return due.length;
    });
    total += expired;
    if (expired < batch) return total;
  }
}

/** The contract with its milestones, as the API shows it. */
export async function contractView(ctx: Pick<Context, 'db'>, contract: ContractRow) {
  return presentContract(contract, await contractsRepo.listMilestones(ctx.db, [contract.id]));
}

/** The contract if the caller is one of its parties, else NOT_FOUND. */
export async function getContract(ctx: Pick<Context, 'db'>, actor: Actor, contractId: string): Promise<ContractRow> {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  return contract;
}

/** The caller's contracts, newest first: `rows` holds limit + 1 (for paging), `present` shows one with its milestones. */
export async function listContracts(
  ctx: Pick<Context, 'db'>,
  actor: Actor,
  filter: { status?: ContractStatus; limit: number; beforeId?: string },
) {
  const rows = await contractsRepo.listContractsForParty(ctx.db, actor.userId, filter);
  const milestones = await contractsRepo.listMilestones(
    ctx.db,
    rows.slice(0, filter.limit).map((c) => c.id),
  );
  return { rows, present: (c: ContractRow) => presentContract(c, milestones) };
}
