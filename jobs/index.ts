// Every job the server runs; each module exports its definition, built from the one context.
import type { Context } from '../src/context.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { housekeepingJob } from './housekeeping.ts';
import { contractExpiryJob } from './contract-expiry.ts';
import { kycReconcileJob } from './kyc-reconcile.ts';
import { payoutJob } from './payouts.ts';
import { sourceSyncJob } from './source-sync.ts';
import { embeddingJobs } from './embeddings.ts';
import { notificationJobs } from './notifications.ts';
import { webhookDeliveryJob } from './webhook-delivery.ts';
import { reviewPublicationJob } from './review-publication.ts';
import { creditGrantsJob } from './credit-grants.ts';
import { disputeSettlementJob } from './dispute-settlement.ts';

export function allJobs(ctx: Context): JobDefinition<any>[] {
  return [
    housekeepingJob(ctx),
    contractExpiryJob(ctx),
    kycReconcileJob(ctx),
    payoutJob(ctx),
    sourceSyncJob(ctx),
    ...embeddingJobs(ctx),
    ...notificationJobs(ctx),
    webhookDeliveryJob(ctx),
    reviewPublicationJob(ctx),
    creditGrantsJob(ctx),
    disputeSettlementJob(ctx),
  ];
}
