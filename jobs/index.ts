// Every job the server runs; each module exports its definition.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../src/config.ts';
import type { Db } from '../db/client.ts';
import type { JobDefinition } from './boss.ts';
import { housekeepingJob } from './housekeeping.ts';
import { contractExpiryJob } from './contract-expiry.ts';
import { kycReconcileJob } from './kyc-reconcile.ts';
import { payoutJob } from './payouts.ts';
import { sourceSyncJob } from './source-sync.ts';
import { embeddingJobs } from './embeddings.ts';
import type { PaymentProvider } from '../src/payments/index.ts';

export interface JobContext {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  payments: PaymentProvider;
}

export function allJobs(ctx: JobContext): JobDefinition<any>[] {
  return [housekeepingJob(ctx), contractExpiryJob(ctx), kycReconcileJob(ctx), payoutJob(ctx), sourceSyncJob(ctx), ...embeddingJobs(ctx)];
}
