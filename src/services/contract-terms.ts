// Turning an agreed round into a contract: created the first time, updated after a revise.
import type { Actor } from '../actor.ts';
import type { EventType } from '../domain/events.ts';
import type { Executor } from '../../db/client.ts';
import { newId } from '../ids.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { NegotiationRow, RoundRow } from '../../db/repositories/negotiations.ts';
import { transition } from '../domain/state-machine.ts';
import { contractTransitions } from '../domain/contract.ts';
import { contractEvent } from './events.ts';

/** When a round leaves payout_delay_days open, the contract uses this (within the 3..10 allowed). */
export const DEFAULT_PAYOUT_DELAY_DAYS = 7;

export async function createOrUpdateContractFromRound(
  tx: Executor,
  negotiation: NegotiationRow,
  round: RoundRow,
  actor: Actor,
  approvalTtlMs: number,
) {
  const terms = {
    roundId: round.id,
    rateCents: round.rateCents,
    hoursPerWeek: round.hoursPerWeek,
    startDate: round.startDate,
    payoutDelayDays: round.payoutDelayDays ?? DEFAULT_PAYOUT_DELAY_DAYS,
    currency: round.currency,
    approvalDeadline: new Date(Date.now() + approvalTtlMs),
    clientApprovedAt: null,
    workerApprovedAt: null,
    clientApprovalMethod: null,
    workerApprovalMethod: null,
  };
  const existing = await contractsRepo.getContractByNegotiation(tx, negotiation.id);
  let contract;
  let eventType: EventType;
  if (existing) {
    const step = transition(contractTransitions, 'contract', existing.status, 'reagree');
    contract = await contractsRepo.updateContract(tx, existing.id, { ...terms, status: step.to });
    eventType = step.event;
  } else {
    contract = await contractsRepo.insertContract(tx, {
      id: newId(),
      negotiationId: negotiation.id,
      gigId: negotiation.gigId,
      clientUserId: negotiation.clientUserId,
      workerUserId: negotiation.workerUserId,
      status: 'pending_owner_approval',
      ...terms,
    });
    eventType = 'contract.created';
  }
  await contractsRepo.replaceMilestones(
    tx,
    contract.id,
    round.currency,
    round.milestones.map((m) => ({ ...m, id: newId() })),
  );
  await contractEvent(tx, eventType, contract, actor);
  return contract;
}
