// The owner's approval policy: under `keys_may_approve` (the default) an API key's approval counts
// as its owner's; under `owner_confirms` only the owner, signed in, approves, and a key's approval
// becomes a request that the owner confirm, on the contract's page in the dashboard. Only a
// signed-in owner changes the policy: an agent must not be able to loosen it.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ApprovalPolicy } from '../../db/schema/column-values.ts';
import { ApiError, forbidden, notFound } from '../errors.ts';
import { roleOf } from '../domain/parties.ts';
import { contractEvent } from './events.ts';
import { dashboardContractUrl } from '../dashboard/links.ts';
import { keysMayApprove } from './contracts.ts';
import { approvalMethodOf, requireSeenRevision, requireUnapprovedTerms, type SeenTerms } from './approvals.ts';
import { move } from './contracts.ts';

/** Whether this actor's approval only asks its owner: a key that may not approve, or any key of an owner whose policy is owner_confirms. */
export async function ownerMustConfirm(db: Executor, actor: Actor): Promise<boolean> {
  if (approvalMethodOf(actor) !== 'api_key') return false;
  return !(await keysMayApprove(db, actor));
}

/** A change of policy: by the owner in a signed-in session (or the operator's CLI), never by a key. */
export function requireOwnerInPerson(actor: Actor, policy: ApprovalPolicy | undefined): void {
  if (policy === undefined || actor.apiKeyId === null) return;
  throw forbidden('only the owner, signed in to the dashboard, can change approval_policy: an API key cannot');
}

/**
 * A key's approval under owner_confirms: nothing is approved; the request is recorded once per
 * revision and party, and the first one tells the owner (contract.approval_requested, to them
 * alone). The same checks as an approval run first, so a request that could never be confirmed
 * (wrong state, already approved, stale terms) is refused the same way.
 */
export async function requestOwnerConfirmation(ctx: Context, actor: Actor, contractId: string, seen: SeenTerms) {
  return ctx.db.transaction(async (tx) => {
    const contract = await contractsRepo.lockContractForParty(tx, actor.userId, contractId);
    if (!contract) throw notFound('contract');
    move(contract, 'approve');
    const role = roleOf(contract, actor.userId);
    requireSeenRevision(contract, seen.revisionCount);
    if (contract.approvalDeadline && contract.approvalDeadline.getTime() <= Date.now())
      throw new ApiError('INVALID_STATE', 'the approval deadline has passed: the contract is expired');
    const hash = await requireUnapprovedTerms(tx, contract, role, seen.termsHash);
    const requested = await contractsRepo.insertApprovalRequest(tx, {
      contractId: contract.id,
      revisionCount: contract.revisionCount,
      partyRole: role,
      termsHash: hash,
      apiKeyId: actor.apiKeyId,
      hostedAgentId: actor.hostedAgentId,
      requestedAt: new Date(),
    });
    if (requested.inserted) await contractEvent(tx, 'contract.approval_requested', contract, actor, { ownerUserId: actor.userId });
    return {
      status: 'owner_confirmation_required' as const,
      contract_id: contract.id,
      party_role: role,
      revision_count: contract.revisionCount,
      terms_hash: hash,
      confirm_url: dashboardContractUrl(ctx.config.publicUrl, contract.id),
      requested_at: requested.row.requestedAt.toISOString(),
      message:
        'Nothing was approved: your owner approves contracts themselves (approval_policy owner_confirms). ' +
        'Ask them to review and approve the terms at confirm_url.',
    };
  });
}
