// Every pg-boss queue by name, and the one way to enqueue a job inside a business transaction, so
// that the job exists exactly when the change that asked for it commits (and not if it rolls back).
// Services enqueue through this file; the job definitions that work the queues are in jobs/.
import { sql } from 'drizzle-orm';
import { fromDrizzle, type JobInsert, type PgBoss, type SendOptions } from 'pg-boss';
import type { Tx } from '../../db/client.ts';

/** Hourly: forget expired idempotency keys, dead sessions, old provider events. */
export const HOUSEKEEPING_QUEUE = 'housekeeping';
/** Every minute: contracts past their approval deadline expire. */
export const CONTRACT_EXPIRY_QUEUE = 'contract-expiry';
/** Every five minutes: contracts whose KYC webhook is late are checked with the provider. */
export const KYC_RECONCILE_QUEUE = 'kyc-reconcile';
/** One job per released milestone, due payout_delay_days later. */
export const PAYOUT_QUEUE = 'milestone-payout';
/** Where pg-boss parks a payout job that failed every retry (the payout queue's dead letter). */
export const PAYOUT_FAILED_QUEUE = 'milestone-payout-failed';
/** One job per resolved dispute: its refunds and releases, then the contract let go (retried until done). */
export const DISPUTE_SETTLEMENT_QUEUE = 'dispute-settlement';
/** One schedule per enabled external source, each job naming its source. */
export const SOURCE_SYNC_QUEUE = 'source-sync';
/** One job per created or edited gig, when an embeddings endpoint is configured. */
export const GIG_EMBEDDING_QUEUE = 'gig-embedding';
/** Every five minutes: embeddings missing for open gigs. */
export const EMBEDDINGS_BACKFILL_QUEUE = 'gig-embeddings-backfill';
/** One attempt to deliver one event to one webhook endpoint; a failed attempt enqueues the next, due later. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

/** One job per notification email (enqueued by the notification subscriber and the reminders). */
export const NOTIFICATION_EMAIL_QUEUE = 'notification-email';
/** Every minute: reminders before contracts' approval deadlines (APPROVAL_REMINDERS). */
export const APPROVAL_REMINDER_QUEUE = 'approval-reminders';
/** Every minute: blind reviews whose contract's review period has ended are published. */
export const REVIEW_PUBLICATION_QUEUE = 'review-publication';
/** Hourly: each user's monthly credits grant for the current month, once per user and month. */
export const CREDIT_GRANTS_QUEUE = 'credit-grants';

/** What each enqueued queue's jobs carry. */
export interface QueuePayloads {
  [PAYOUT_QUEUE]: { milestone_id: string };
  [DISPUTE_SETTLEMENT_QUEUE]: { dispute_id: string };
  [GIG_EMBEDDING_QUEUE]: { gig_id: string };
  [SOURCE_SYNC_QUEUE]: { source: string };
  /** The email as rendered when its event was dispatched; `key` names what it tells (its event or reminder, and the user). */
  [NOTIFICATION_EMAIL_QUEUE]: { to: string; user_id: string; key: string; subject: string; text: string; html: string };
  /**
   * `retry_index`: the attempt's place in the retry schedule; `manual`: a redelivery or replay, one attempt with no retry;
   * `traceparent`: the trace the attempt continues (its event's, or the attempt's before it), while traces are on.
   */
  [WEBHOOK_DELIVERY_QUEUE]: { endpoint_id: string; event_id: string; retry_index: number; manual: boolean; traceparent?: string };
}

/**
 * Enqueues a job in the caller's transaction. pg-boss's `db` option runs its insert through our
 * Drizzle transaction (required on PGlite, whose single connection the open transaction holds).
 */
export async function enqueueInTransaction<Q extends keyof QueuePayloads>(
  jobs: { boss: PgBoss },
  tx: Tx,
  queue: Q,
  data: QueuePayloads[Q],
  options: Omit<SendOptions, 'db'> = {},
): Promise<void> {
  await jobs.boss.send(queue, data, { ...options, db: inTransaction(tx) });
}

/** Several jobs of one queue in one statement, in the caller's transaction; a job whose id exists already is skipped. */
export async function enqueueManyInTransaction<Q extends keyof QueuePayloads>(
  jobs: { boss: PgBoss },
  tx: Tx,
  queue: Q,
  items: (Omit<JobInsert<QueuePayloads[Q]>, 'data'> & { data: QueuePayloads[Q] })[],
): Promise<void> {
  if (items.length) await jobs.boss.insert(queue, items, { db: inTransaction(tx) });
}

/**
 * Completes jobs of a batch handler (src/job-system/boss.ts) in the caller's transaction, so that what the
 * handler recorded and the job's completion commit together. Fenced to the attempt: a job that
 * pg-boss has meanwhile expired and handed out again is left alone.
 */
export async function completeJobsInTransaction(
  jobs: { boss: PgBoss },
  tx: Tx,
  queue: keyof QueuePayloads,
  attempts: { id: string; retryCount: number }[],
): Promise<void> {
  if (attempts.length) await jobs.boss.complete(queue, attempts, null, { db: inTransaction(tx) });
}

// fromDrizzle's parameter type is its own structural Drizzle type, which our Tx satisfies at run time.
const inTransaction = (tx: Tx) => fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql);
