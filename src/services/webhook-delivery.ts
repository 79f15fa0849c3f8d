// Webhook delivery (docs/architecture.md §6): the relay's subscriber enqueues one job per (endpoint,
// event) in the relay's transaction; a worker takes a batch of due jobs (at most one per endpoint at
// a time, across processes), makes their attempts at once, and records each outcome as it comes:
// several outcomes per transaction, each job completed in the transaction that records its attempt.
// A failed attempt enqueues the next on the retry schedule itself, so pg-boss retries only a job
// whose recording failed or whose process died (at least once).
import crypto from 'node:crypto';
import DataLoader from 'dataloader';
import type { Context } from '../context.ts';
import type { Tx } from '../../db/client.ts';
import {
  enabledEndpointsOf,
  endpointForDelivery,
  endpointsForDelivery,
  insertDeliveries,
  recordSuccesses,
  setEndpointHealth,
  type NewWebhookDelivery,
  type WebhookEndpointRow,
} from '../../db/repositories/webhooks.ts';
import { getEventsByIds, type EventRow } from '../../db/repositories/events.ts';
import {
  completeJobsInTransaction,
  enqueueInTransaction,
  enqueueManyInTransaction,
  WEBHOOK_DELIVERY_QUEUE,
  type QueuePayloads,
} from '../job-system/queues.ts';
import { newId } from '../ids.ts';
import { presentEvent } from '../presenters/events.ts';
import { signedHeaders } from '../webhooks/signing.ts';
import { deliver, type DeliveryResult } from '../webhooks/safe-delivery.ts';
import type { EventSubscriber } from './event-relay.ts';
import { webhookEndpointEvent } from './events.ts';
import { currentTraceparent } from '../tracing/index.ts';

type Settings = Pick<Context, 'config'>;
type Jobs = Pick<Context, 'jobs'>;
type DeliveryContext = Pick<Context, 'db' | 'config' | 'jobs' | 'log' | 'metrics'>;
export type DeliveryJob = QueuePayloads[typeof WEBHOOK_DELIVERY_QUEUE];

/**
 * Svix's schedule: the delay before each attempt after a failure, in seconds: at once, 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h; eight attempts in all (times WEBHOOK_RETRY_SCALE).
 */
export const RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18_000, 36_000, 36_000];
/** An endpoint whose every attempt has failed this long is disabled (times WEBHOOK_RETRY_SCALE). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
/** The whole of one attempt; the job expires a little later (jobs/webhook-delivery.ts). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** The longest a Retry-After is followed (a receiver cannot park its messages for longer). */
const MAX_RETRY_AFTER_SECONDS = 36_000;

export const urlOptions = (config: Settings['config']) => ({
  allowPrivate: config.webhooksAllowPrivateUrls,
  requireHttps: config.nodeEnv === 'production',
  lookupTimeoutMs: config.webhookLookupTimeoutMs,
  nameAllowPrivateSetting: config.nodeEnv !== 'production',
});

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(endpoint: WebhookEndpointRow, now = new Date()): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}

/** One signed POST of a message to an endpoint (URL checked again, address pinned, no redirects). */
export async function attempt(ctx: Settings, endpoint: WebhookEndpointRow, message: { id: string; body: string }): Promise<DeliveryResult> {
  const now = new Date();
  const headers = signedHeaders({ id: message.id, timestamp: now, body: message.body, secrets: signingSecrets(endpoint, now) });
  return deliver({
    url: endpoint.url,
    headers: { ...headers },
    body: message.body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    ...urlOptions(ctx.config),
  });
}

export const resultColumns = (r: DeliveryResult) => ({
  succeeded: r.error === null,
  statusCode: r.status,
  durationMs: r.durationMs,
  responseExcerpt: r.responseExcerpt,
  error: r.error ? `${r.error.kind}: ${r.error.message}`.slice(0, 1000) : null,
});

/** A job id made from (endpoint, event, place in the schedule): the same job enqueued twice is one job. */
function scheduledJobId(job: DeliveryJob): string {
  const hex = crypto.createHash('sha256').update(`${job.endpoint_id}:${job.event_id}:${job.retry_index}`).digest('hex');
  // Shaped as a UUID (version 8, "custom"), which pg-boss's id column requires.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function jobOptions(job: DeliveryJob) {
  return {
    // Automatic attempts have fixed ids, so a redispatch or a re-run job cannot double one; manual ones are each new.
    ...(job.manual ? {} : { id: scheduledJobId(job) }),
    // One attempt at a time per endpoint (jobs/webhook-delivery.ts): a slow endpoint delays only itself.
    group: { id: job.endpoint_id },
    // The job records a failed attempt and schedules the next itself; pg-boss retries only a job
    // that crashed or threw (e.g. the database was away while recording), which makes its attempt again.
    retryLimit: 3,
    retryDelay: 30,
  };
}

export async function enqueueDelivery(ctx: Jobs, tx: Tx, job: DeliveryJob, startAfter?: Date): Promise<void> {
  // Traces: a redelivery continues its request's trace, a retry the attempt before it.
  const data = withTrace(job, currentTraceparent() ?? job.traceparent);
  await enqueueInTransaction(ctx.jobs, tx, WEBHOOK_DELIVERY_QUEUE, data, { ...jobOptions(data), ...(startAfter ? { startAfter } : {}) });
}

/** The job carrying the trace it continues, when there is one (traces on). */
const withTrace = (job: DeliveryJob, traceparent: string | null | undefined): DeliveryJob => (traceparent ? { ...job, traceparent } : job);

/**
 * The relay's subscriber: one delivery job per (enabled, subscribed endpoint of a user in the
 * event's audience, event). An endpoint receives the events written after it was created, as
 * Stripe's do: the relay may dispatch an older event after a new endpoint exists (a user's first
 * credit grant, written as they signed up), which would otherwise reach it.
 */
export function webhookSubscriber(ctx: Jobs): EventSubscriber {
  return async (tx, events) => {
    const endpoints = await enabledEndpointsOf(tx, [...new Set(events.flatMap((e) => e.audienceUserIds))]);
    const jobs: DeliveryJob[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (!event.audienceUserIds.includes(endpoint.userId)) continue;
        if (endpoint.eventTypes && !endpoint.eventTypes.includes(event.type)) continue;
        if (endpoint.createdAt > event.createdAt) continue;
        jobs.push(withTrace({ endpoint_id: endpoint.id, event_id: event.id, retry_index: 0, manual: false }, event.traceparent));
      }
    }
    await enqueueManyInTransaction(
      ctx.jobs,
      tx,
      WEBHOOK_DELIVERY_QUEUE,
      jobs.map((data) => ({ data, ...jobOptions(data) })),
    );
  };
}

/** The delay before the attempt after a failed one, in ms; null when the schedule is spent. */
export function nextDelayMs(retryIndex: number, result: DeliveryResult, scale: number, random = Math.random): number | null {
  const next = RETRY_SCHEDULE_SECONDS[retryIndex + 1];
  if (next === undefined) return null;
  // ±10 % jitter, so that the retries of many messages failed at once do not arrive at once.
  let ms = next * 1000 * scale * (0.9 + 0.2 * random());
  if ((result.status === 429 || result.status === 503) && result.retryAfterSeconds !== null) {
    ms = Math.max(ms, Math.min(result.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000);
  }
  return Math.round(ms);
}

interface HeldJob {
  id: string;
  retryCount: number;
  data: DeliveryJob;
}
/** One job's outcome: no attempt (endpoint or event gone, endpoint disabled), or the attempt made. */
interface Outcome {
  job: HeldJob;
  made?: { endpoint: WebhookEndpointRow; event: EventRow; result: DeliveryResult };
}

/**
 * The delivery job, for one process: each job's attempt, recorded with the job's completion. The
 * outcomes of attempts that end while a write runs go into the next write, so that under load one
 * transaction records many (the database's pace sets the group size, no timer).
 */
export function deliveryRunner(ctx: DeliveryContext): (job: HeldJob) => Promise<void> {
  const record = outcomeWriter(ctx);
  // The jobs fetched together start together: one query reads all their endpoints, one their events.
  // No cache: an endpoint changed since (disabled, rotated) is read as it is now.
  const byId = <T extends { id: string }>(rows: T[], ids: readonly string[]) => {
    const found = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => found.get(id));
  };
  const endpoints = new DataLoader((ids: readonly string[]) => endpointsForDelivery(ctx.db, [...ids]).then((rows) => byId(rows, ids)), {
    cache: false,
  });
  const events = new DataLoader((ids: readonly string[]) => getEventsByIds(ctx.db, [...ids]).then((rows) => byId(rows, ids)), {
    cache: false,
  });
  return async (job) => {
    const [endpoint, event] = await Promise.all([endpoints.load(job.data.endpoint_id), events.load(job.data.event_id)]);
    // Deleted or disabled since the job was enqueued: nothing to do.
    if (!endpoint || endpoint.disabledAt || !event) return record({ job });
    const result = await attempt(ctx, endpoint, { id: event.id, body: JSON.stringify(presentEvent(event)) });
    ctx.metrics.webhookAttempt(result.error?.kind ?? 'delivered', result.durationMs / 1000);
    return record({ job, made: { endpoint, event, result } });
  };
}

function outcomeWriter(ctx: DeliveryContext): (outcome: Outcome) => Promise<void> {
  let pending: { outcome: Outcome; resolve(): void; reject(err: unknown): void }[] = [];
  let writing = false;
  const drain = async () => {
    while (pending.length) {
      const group = pending;
      pending = [];
      try {
        await ctx.db.transaction((tx) =>
          writeOutcomes(
            ctx,
            tx,
            group.map((g) => g.outcome),
          ),
        );
        for (const g of group) g.resolve();
      } catch (err) {
        for (const g of group) g.reject(err);
      }
    }
    writing = false;
  };
  return (outcome) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ outcome, resolve, reject });
      if (!writing) {
        writing = true;
        setImmediate(drain);
      }
    });
}

/** In one transaction: the attempts recorded, failures' consequences, and the jobs completed. */
async function writeOutcomes(ctx: DeliveryContext, tx: Tx, outcomes: Outcome[]): Promise<void> {
  const made = outcomes.flatMap((o) => (o.made ? [{ job: o.job, ...o.made }] : []));
  await recordSuccesses(
    tx,
    made.filter((m) => m.result.error === null).map((m) => ({ ...deliveryRow(m, null), statusCode: m.result.status })),
  );
  const failed: Omit<NewWebhookDelivery, 'attempt'>[] = [];
  for (const m of made) {
    if (m.result.error === null) continue;
    const after = await afterFailure(ctx, tx, m.job.data, m.result);
    if (after) failed.push(deliveryRow(m, after.nextRetryAt));
  }
  await insertDeliveries(tx, failed);
  await completeJobsInTransaction(
    ctx.jobs,
    tx,
    WEBHOOK_DELIVERY_QUEUE,
    outcomes.map((o) => ({ id: o.job.id, retryCount: o.job.retryCount })),
  );
}

function deliveryRow(made: NonNullable<Outcome['made']>, nextRetryAt: Date | null) {
  return {
    id: newId(),
    endpointId: made.endpoint.id,
    eventId: made.event.id,
    eventType: made.event.type,
    ...resultColumns(made.result),
    nextRetryAt,
  };
}

/** Disables the endpoint and tells its owner (the event webhook_endpoint.disabled). */
async function disable(
  tx: Tx,
  endpoint: WebhookEndpointRow,
  changes: { disabledAt: Date; disabledReason: 'gone' | 'failing'; failingSince: Date },
) {
  const row = await setEndpointHealth(tx, endpoint.id, changes);
  if (row) await webhookEndpointEvent(tx, 'webhook_endpoint.disabled', row, null);
}

/**
 * After a failed attempt, on the endpoint locked: 410 disables it at once, five days of failures
 * disable it, otherwise the next attempt is scheduled. Null when the endpoint is gone.
 */
async function afterFailure(
  ctx: DeliveryContext,
  tx: Tx,
  job: DeliveryJob,
  result: DeliveryResult,
): Promise<{ nextRetryAt: Date | null } | null> {
  const endpoint = await endpointForDelivery(tx, job.endpoint_id, true);
  if (!endpoint) return null;
  const now = new Date();
  const scale = ctx.config.webhookRetryScale;
  if (result.status === 410) {
    await disable(tx, endpoint, { disabledAt: now, disabledReason: 'gone', failingSince: endpoint.failingSince ?? now });
    ctx.log.warn({ endpointId: endpoint.id, userId: endpoint.userId }, 'webhook endpoint answered 410 Gone: disabled');
    return { nextRetryAt: null };
  }
  const failingSince = endpoint.failingSince ?? now;
  if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS * scale) {
    await disable(tx, endpoint, { disabledAt: now, disabledReason: 'failing', failingSince });
    ctx.log.warn(
      { endpointId: endpoint.id, userId: endpoint.userId, failingSince },
      'webhook endpoint failed every attempt for 5 days: disabled',
    );
    return { nextRetryAt: null };
  }
  if (!endpoint.failingSince) await setEndpointHealth(tx, endpoint.id, { failingSince });
  const delay = job.manual || endpoint.disabledAt ? null : nextDelayMs(job.retry_index, result, scale);
  if (delay === null) return { nextRetryAt: null };
  const nextRetryAt = new Date(now.getTime() + delay);
  await enqueueDelivery(ctx, tx, { ...job, retry_index: job.retry_index + 1 }, nextRetryAt);
  return { nextRetryAt };
}
