// Deleting an account: only its owner, in a browser session (never an agent's key), with an explicit
// confirmation. Refused while anything still binds the user (a contract active or disputed, or money
// not settled). Otherwise, in one transaction: what the user has open ends as the other parties
// would see it end (each through its own service, so each writes its event), what is personal is
// erased, and every key and session stops working. What others keep stays, under a placeholder name.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import * as account from '../../db/repositories/account.ts';
import { revokeApiKey } from '../../db/repositories/api-keys.ts';
import { ApiError, validationFailed } from '../errors.ts';
import { cancel as cancelContract } from './contracts.ts';
import { cancelNegotiation } from './negotiations.ts';
import { changeStatus } from './applications.ts';
import { updateGig } from './gigs.ts';
import { deleteResume } from './resumes.ts';
import { gone } from './profiles.ts';

/** What the request must carry, word for word, so that no client deletes an account by accident. */
export const DELETION_CONFIRMATION = 'delete my account';
/** The name others see, in their contracts and reviews, in place of a deleted user's. */
export const DELETED_USER_NAME = 'Deleted user';

export interface DeletionSummary {
  gigs_closed: number;
  applications_withdrawn: number;
  negotiations_cancelled: number;
  contracts_cancelled: number;
  api_keys_revoked: number;
}

/** Why the account cannot go yet: each contract named, with what holds it. */
function blockedBy(contracts: { id: string; status: string; unsettled: boolean }[]): ApiError {
  const named = contracts.map(
    (c) => `${c.id} (${c.unsettled && c.status !== 'active' && c.status !== 'disputed' ? 'payout owed' : c.status})`,
  );
  return new ApiError(
    'CONFLICT',
    `the account has contracts that must finish first: ${named.join(', ')}; a contract must be completed (every payout paid) or cancelled`,
  );
}

export async function deleteAccount(ctx: Context, actor: Actor, input: { confirm: string }): Promise<DeletionSummary> {
  if (input.confirm !== DELETION_CONFIRMATION) throw validationFailed('body.confirm', `must be exactly "${DELETION_CONFIRMATION}"`);
  let revokedKeys: string[] = [];
  const summary = await ctx.db.transaction(async (tx) => {
    // The services below are handed this transaction, where their own transactions become
    // savepoints, so the deletion happens whole or not at all.
    const inTx = { ...ctx, db: tx };
    if (!(await account.lockUser(tx, actor.userId))) throw gone();
    const blocking = await account.unsettledContracts(tx, actor.userId);
    if (blocking.length) throw blockedBy(blocking);

    const contracts = await account.pendingContractIds(tx, actor.userId);
    for (const id of contracts) await cancelContract(inTx, actor, id);
    const negotiations = await account.openNegotiationIds(tx, actor.userId);
    for (const id of negotiations) await cancelNegotiation(inTx, actor, id);
    const applications = await account.pendingApplicationIds(tx, actor.userId);
    for (const id of applications) await changeStatus(inTx, actor, id, 'withdraw');
    const gigs = await account.openGigIds(tx, actor.userId);
    for (const id of gigs) await updateGig(inTx, actor, id, {}, 'closed');
    await deleteResume(inTx, actor);

    revokedKeys = await account.activeKeyIds(tx, actor.userId);
    for (const id of revokedKeys) await revokeApiKey(tx, actor.userId, id);
    await account.revokeAllSessions(tx, actor.userId);
    await account.deletePrivateRows(tx, actor.userId);
    await account.anonymize(tx, actor.userId, DELETED_USER_NAME);
    return {
      gigs_closed: gigs.length,
      applications_withdrawn: applications.length,
      negotiations_cancelled: negotiations.length,
      contracts_cancelled: contracts.length,
      api_keys_revoked: revokedKeys.length,
    };
  });
  // Other processes hear of the revocations when the transaction commits; this one forgets now.
  for (const id of revokedKeys) ctx.apiKeys.forget(id);
  return summary;
}
