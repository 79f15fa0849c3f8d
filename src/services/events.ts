// The outbox writers: every state change calls one of these with the transaction it writes in, so
// the event exists exactly when the change does. Each event carries its resource as the API shows
// it after the change (contact details excepted: both parties read the same event); the users it
// concerns (its audience) follow from its type by the catalog's table (src/domain/events.ts). Its
// actor is the Actor the service was handed (the user, and the API key and hosted agent they acted
// by), or null for a change the platform made (a job, the payment provider).
import type { Executor } from '../../db/client.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import type { ContractRow, MilestoneRow } from '../../db/repositories/contracts.ts';
import * as negotiationsRepo from '../../db/repositories/negotiations.ts';
import type { NegotiationRow } from '../../db/repositories/negotiations.ts';
import type { GigRow } from '../../db/repositories/gigs.ts';
import type { ApplicationRow } from '../../db/repositories/applications.ts';
import type { ApiKeyRow } from '../../db/repositories/api-keys.ts';
import { audienceOf, type EventSubject, type EventType } from '../domain/events.ts';
import { presentContract, presentMilestone } from '../presenters/contracts.ts';
import { presentNegotiation } from '../presenters/negotiations.ts';
import { presentGig } from '../presenters/gigs.ts';
import { presentApplication } from '../presenters/applications.ts';
import { presentApiKey } from '../presenters/api-keys.ts';
import { presentWebhookEndpoint } from '../presenters/webhooks.ts';
import type { WebhookEndpointRow } from '../../db/repositories/webhooks.ts';
import type { ReviewRow } from '../../db/repositories/reviews.ts';
import type { VouchRow } from '../../db/repositories/vouches.ts';
import { presentContractReview } from '../presenters/reviews.ts';
import { presentVouch } from '../presenters/vouches.ts';
import type { CreditEntryView } from '../../db/repositories/credits.ts';
import { presentCreditEntry } from '../presenters/credits.ts';
import type { DisputeView, EvidenceView } from '../presenters/disputes.ts';
import { newId } from '../ids.ts';
import type { Actor } from '../actor.ts';
import { currentTraceparent } from '../tracing/index.ts';

/** Writes the event; its audience follows from its type by the catalog's table (src/domain/events.ts). */
function record(
  tx: Executor,
  type: EventType,
  resourceType: string,
  resourceId: string,
  actor: Actor | null,
  subject: EventSubject,
  data: unknown,
) {
  return recordEvent(tx, {
    id: newId(),
    type,
    resourceType,
    resourceId,
    actorUserId: actor?.userId ?? null,
    actorApiKeyId: actor?.apiKeyId ?? null,
    actorHostedAgentId: actor?.hostedAgentId ?? null,
    audienceUserIds: audienceOf(type, subject),
    data,
    traceparent: currentTraceparent(),
  });
}

export function gigEvent(tx: Executor, type: EventType, gig: GigRow, actor: Actor | null) {
  return record(tx, type, 'gig', gig.id, actor, { clientUserId: gig.clientUserId }, presentGig(gig));
}

export function applicationEvent(tx: Executor, type: EventType, application: ApplicationRow, clientUserId: string, actor: Actor | null) {
  return record(
    tx,
    type,
    'application',
    application.id,
    actor,
    { clientUserId, workerUserId: application.workerUserId },
    presentApplication(application, clientUserId),
  );
}

/** A profile event, with the profile as its owner sees it (the owner is the one who changes it). */
export function profileEvent(tx: Executor, type: EventType, userId: string, profile: unknown, actor: Actor) {
  return record(tx, type, 'user', userId, actor, { ownerUserId: userId }, profile);
}

/** An API key event goes to the key's owner; the secret is never part of it. */
export function apiKeyEvent(tx: Executor, type: EventType, key: ApiKeyRow, actor: Actor | null) {
  return record(tx, type, 'api_key', key.id, actor, { ownerUserId: key.userId }, presentApiKey(key));
}

/** A webhook endpoint event goes to the endpoint's owner; the secret is never part of it. */
export function webhookEndpointEvent(tx: Executor, type: EventType, endpoint: WebhookEndpointRow, actor: Actor | null) {
  return record(tx, type, 'webhook_endpoint', endpoint.id, actor, { ownerUserId: endpoint.userId }, presentWebhookEndpoint(endpoint));
}

/** A contract event, with the contract and its milestones as the API shows them after the change. */
export async function contractEvent(
  tx: Executor,
  type: EventType,
  contract: ContractRow,
  actor: Actor | null,
  subject: Pick<EventSubject, 'ownerUserId'> = {},
) {
  const milestones = await contractsRepo.listMilestones(tx, [contract.id]);
  await record(tx, type, 'contract', contract.id, actor, { ...contract, ...subject }, presentContract(contract, milestones));
}

/** A milestone event goes to both parties of its contract; `extra` adds e.g. a failure reason. */
export async function milestoneEvent(
  tx: Executor,
  type: EventType,
  contract: ContractRow,
  milestone: MilestoneRow,
  actor: Actor | null,
  extra: Record<string, unknown> = {},
) {
  await record(tx, type, 'milestone', milestone.id, actor, contract, { ...presentMilestone(milestone), ...extra });
}

/** A negotiation event, with the negotiation as the API shows it (no contact details: both parties read events). */
export async function negotiationEvent(tx: Executor, type: EventType, negotiation: NegotiationRow, actor: Actor) {
  const [rounds, contract] = await Promise.all([
    negotiationsRepo.listRounds(tx, [negotiation.id]),
    contractsRepo.getContractByNegotiation(tx, negotiation.id),
  ]);
  const data = presentNegotiation(negotiation, rounds, { contractId: contract?.id ?? null, contractRoundId: contract?.roundId ?? null });
  await record(tx, type, 'negotiation', negotiation.id, actor, negotiation, data);
}

/** `vouch.received`, to the user vouched for; its resource is that user (a vouch has no id of its own). */
export function vouchEvent(tx: Executor, vouch: VouchRow, voucherDisplayName: string, actor: Actor) {
  return record(
    tx,
    'vouch.received',
    'user',
    vouch.vouchedUserId,
    actor,
    { ownerUserId: vouch.vouchedUserId },
    presentVouch(vouch, voucherDisplayName),
  );
}

/** `review.published`, to the reviewed user: the review as the contract's parties see it. */
export function reviewEvent(tx: Executor, type: EventType, review: ReviewRow, actor: Actor | null) {
  return record(tx, type, 'review', review.id, actor, { ownerUserId: review.revieweeUserId }, presentContractReview(review));
}

/** `credits.granted`, to the user granted (by the monthly schedule or an operator: no actor). */
export function creditsGrantedEvent(tx: Executor, entry: CreditEntryView) {
  return record(tx, 'credits.granted', 'credit_entry', entry.id, null, { ownerUserId: entry.userId }, presentCreditEntry(entry));
}

/** A dispute event, to both parties of its contract: the dispute as the API shows it (without its evidence list). */
export function disputeEvent(tx: Executor, type: EventType, contract: ContractRow, dispute: DisputeView, actor: Actor | null) {
  return record(tx, type, 'dispute', dispute.id, actor, contract, dispute);
}

/** `dispute.evidence_added`, to both parties: the evidence as the API shows it. */
export function disputeEvidenceEvent(tx: Executor, contract: ContractRow, evidence: EvidenceView, actor: Actor | null) {
  return record(tx, 'dispute.evidence_added', 'dispute_evidence', evidence.id, actor, contract, evidence);
}
