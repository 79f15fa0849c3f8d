// The outbox writes of the lifecycle: each event carries its resource as the API shows it after
// the change (contact details excepted: both parties read the same event).
import type { Executor } from '../../db/client.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow } from '../../db/repositories/contracts.ts';
import * as negotiationsRepo from '../../db/repositories/negotiations.ts';
import type { NegotiationRow } from '../../db/repositories/negotiations.ts';
import { presentContract } from '../presenters/contracts.ts';
import { presentNegotiation } from '../presenters/negotiations.ts';
import { audience } from './parties.ts';

/** Writes the contract event with the contract as the API shows it after the change. */
export async function contractEvent(tx: Executor, type: string, contract: ContractRow, actorUserId: string | null) {
  const milestones = await contractsRepo.listMilestones(tx, [contract.id]);
  await recordEvent(tx, { type, resourceType: 'contract', resourceId: contract.id, actorUserId, audienceUserIds: audience(contract), data: presentContract(contract, milestones) });
}

/** Writes the event with the negotiation as the API shows it (no contact details: both parties read events). */
export async function negotiationEvent(tx: Executor, type: string, negotiation: NegotiationRow, actorUserId: string) {
  const [rounds, contract] = await Promise.all([negotiationsRepo.listRounds(tx, [negotiation.id]), contractsRepo.getContractByNegotiation(tx, negotiation.id)]);
  const data = presentNegotiation(negotiation, rounds, { contractId: contract?.id ?? null, contractRoundId: contract?.roundId ?? null });
  await recordEvent(tx, { type, resourceType: 'negotiation', resourceId: negotiation.id, actorUserId, audienceUserIds: audience(negotiation), data });
}
