// Webhook endpoints: registering, changing, rotating the secret, listing attempts, redelivering; and
// delivery itself: the relay's subscriber enqueues one job per (endpoint, event), the job makes one
// attempt, records it, and enqueues the next on the retry schedule (docs/architecture.md §6).
import crypto from 'node:crypto';
import type { Context } from '../context.ts';
import type { Tx } from '../../db/client.ts';
import {
  attemptsOf,
  countEndpoints,
  deleteEndpoint,
  enabledEndpointsOf,
  endpointForDelivery,
  failedEventIds,
  getDelivery,
  getEndpoint,
  insertDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockUserForEndpoints,
  setEndpointHealth,
  updateEndpoint,
  type EndpointChanges,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../db/repositories/webhooks.ts';
import { getEventById, type EventRow } from '../../db/repositories/events.ts';
import { enqueueInTransaction, WEBHOOK_DELIVERY_QUEUE, type QueuePayloads } from '../../jobs/queues.ts';
import { isEventType } from '../domain/events.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentEvent } from '../presenters/events.ts';
import { newWebhookSecret, signedHeaders } from '../webhooks/signing.ts';
import { checkWebhookUrl, deliver, WebhookUrlError, type DeliveryResult } from '../webhooks/safe-delivery.ts';
import type { EventSubscriber } from './event-relay.ts';
import { webhookEndpointEvent } from './events.ts';

type Db = Pick<Context, 'db'>;
type Settings = Pick<Context, 'config'>;
type Jobs = Pick<Context, 'jobs'>;

/** Endpoints one user may have; the 21st is 409 CONFLICT. Enough for an agent per environment, few enough to bound the fan-out of one event. */
export const MAX_ENDPOINTS_PER_USER = 20;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3600 * 1000;
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
/** Replay re-sends at most this many messages per request. */
export const MAX_REPLAY = 1000;
export const TEST_EVENT_TYPE = 'webhook.test';

const urlOptions = (config: Settings['config']) => ({
  allowPrivate: config.webhooksAllowPrivateUrls,
  requireHttps: config.nodeEnv === 'production',
});

async function checkedUrl(config: Settings['config'], url: string): Promise<string> {
  try {
    return (await checkWebhookUrl(url, urlOptions(config))).url.toString();
  } catch (err) {
    if (err instanceof WebhookUrlError) throw err.toApiError('body.url');
    throw err;
  }
}

function checkedEventTypes(types: string[] | null | undefined): string[] | null {
  if (!types) return null;
  types.forEach((t, i) => {
    if (!isEventType(t)) throw validationFailed(`body.event_types[${i}]`, `is not an event type of the catalog: ${t}`);
  });
  return [...new Set(types)];
}

export interface EndpointInput {
  url: string;
  description?: string;
  /** Null or absent: every type. */
  eventTypes?: string[] | null;
}

/** Registers an endpoint; returns it with its secret (shown to the caller this once). */
export async function createWebhookEndpoint(ctx: Db & Settings, userId: string, input: EndpointInput) {
  const url = await checkedUrl(ctx.config, input.url);
  const eventTypes = checkedEventTypes(input.eventTypes);
  return ctx.db.transaction(async (tx) => {
    await lockUserForEndpoints(tx, userId);
    if ((await countEndpoints(tx, userId)) >= MAX_ENDPOINTS_PER_USER) {
      throw conflict(`you have ${MAX_ENDPOINTS_PER_USER} webhook endpoints, the most allowed; delete one first`);
    }
    return insertEndpoint(tx, userId, {
      id: newId(),
      url,
      description: input.description?.trim() ?? '',
      eventTypes,
      secret: newWebhookSecret(),
    });
  });
}

export function listWebhookEndpoints(ctx: Db, userId: string, page: { limit: number; beforeId?: string }) {
  return listEndpoints(ctx.db, userId, page);
}

export async function getWebhookEndpoint(ctx: Db, userId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await getEndpoint(ctx.db, userId, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** Changes an endpoint; `enabled: true` re-enables a disabled one (its failing streak forgotten), `false` disables it. */
export async function updateWebhookEndpoint(
  ctx: Db & Settings,
  userId: string,
  id: string,
  patch: Partial<EndpointInput> & { enabled?: boolean },
): Promise<WebhookEndpointRow> {
  await getWebhookEndpoint(ctx, userId, id); // 404 before judging the body
  const changes: EndpointChanges = {};
  if (patch.url !== undefined) changes.url = await checkedUrl(ctx.config, patch.url);
  if (patch.description !== undefined) changes.description = patch.description.trim();
  if (patch.eventTypes !== undefined) changes.eventTypes = checkedEventTypes(patch.eventTypes);
  if (patch.enabled === true) Object.assign(changes, { disabledAt: null, disabledReason: null, failingSince: null });
  if (patch.enabled === false) Object.assign(changes, { disabledAt: new Date(), disabledReason: 'manual' });
  const row = await updateEndpoint(ctx.db, userId, id, changes);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export async function deleteWebhookEndpoint(ctx: Db, userId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await deleteEndpoint(ctx.db, userId, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** A new secret; the current one keeps signing beside it for 24 h (a secret older than that is dropped). */
export async function rotateWebhookSecret(ctx: Db, userId: string, id: string): Promise<WebhookEndpointRow> {
  return ctx.db.transaction(async (tx) => {
    const current = await getEndpoint(tx, userId, id, true);
    if (!current) throw notFound('webhook endpoint');
    const row = await updateEndpoint(tx, userId, id, {
      secret: newWebhookSecret(),
      previousSecret: current.secret,
      previousSecretUntil: new Date(Date.now() + PREVIOUS_SECRET_OVERLAP_MS),
    });
    return row!;
  });
}

export async function listWebhookDeliveries(ctx: Db, userId: string, endpointId: string, page: { limit: number; beforeId?: string }) {
  await getWebhookEndpoint(ctx, userId, endpointId);
  return listDeliveries(ctx.db, userId, endpointId, page);
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(endpoint: WebhookEndpointRow, now = new Date()): string[] {
  const previous =
    endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}

async function attempt(ctx: Settings, endpoint: WebhookEndpointRow, message: { id: string; body: string }): Promise<DeliveryResult> {
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

const resultColumns = (r: DeliveryResult) => ({
  succeeded: r.error === null,
  statusCode: r.status,
  durationMs: r.durationMs,
  responseExcerpt: r.responseExcerpt,
  error: r.error ? `${r.error.kind}: ${r.error.message}`.slice(0, 1000) : null,
});

/** Sends a signed test message (type `webhook.test`) now, once, and records the attempt. */
export async function sendTestDelivery(ctx: Db & Settings, userId: string, id: string): Promise<WebhookDeliveryRow> {
  const endpoint = await getWebhookEndpoint(ctx, userId, id);
  const messageId = newId();
  const body = JSON.stringify({
    id: messageId,
    type: TEST_EVENT_TYPE,
    created_at: new Date().toISOString(),
    data: { endpoint_id: endpoint.id, message: 'A test delivery from gigmarket.' },
  });
  const result = await attempt(ctx, endpoint, { id: messageId, body });
  return insertDelivery(ctx.db, {
    id: newId(),
    endpointId: endpoint.id,
    eventId: messageId,
    eventType: TEST_EVENT_TYPE,
    attempt: 1,
    ...resultColumns(result),
  });
}

function requireEnabled(endpoint: WebhookEndpointRow) {
  if (endpoint.disabledAt)
    throw new ApiError('INVALID_STATE', 'the webhook endpoint is disabled; enable it first (PATCH with enabled: true)');
}

/** Sends one delivery's event again (one attempt, no retries after it), as a job. */
export async function redeliver(ctx: Db & Jobs, userId: string, endpointId: string, deliveryId: string): Promise<{ queued: number }> {
  const endpoint = await getWebhookEndpoint(ctx, userId, endpointId);
  const delivery = await getDelivery(ctx.db, userId, endpointId, deliveryId);
  if (!delivery) throw notFound('delivery');
  if (delivery.eventType === TEST_EVENT_TYPE) throw new ApiError('INVALID_STATE', 'a test message is not redelivered: send another test');
  requireEnabled(endpoint);
  await ctx.db.transaction((tx) =>
    enqueueDelivery(ctx, tx, { endpoint_id: endpointId, event_id: delivery.eventId, retry_index: 0, manual: true }),
  );
  return { queued: 1 };
}

/** Sends again every event whose attempts to this endpoint since `since` all failed (one attempt each, no retries). */
export async function replayFailed(ctx: Db & Jobs, userId: string, endpointId: string, since: Date): Promise<{ queued: number }> {
  const endpoint = await getWebhookEndpoint(ctx, userId, endpointId);
  requireEnabled(endpoint);
  return ctx.db.transaction(async (tx) => {
    const eventIds = await failedEventIds(tx, endpointId, since, MAX_REPLAY);
    for (const eventId of eventIds)
      await enqueueDelivery(ctx, tx, { endpoint_id: endpointId, event_id: eventId, retry_index: 0, manual: true });
    return { queued: eventIds.length };
  });
}

type DeliveryJob = QueuePayloads[typeof WEBHOOK_DELIVERY_QUEUE];

/** A job id made from (endpoint, event, place in the schedule): the same job enqueued twice is one job. */
function scheduledJobId(job: DeliveryJob): string {
  const hex = crypto.createHash('sha256').update(`${job.endpoint_id}:${job.event_id}:${job.retry_index}`).digest('hex');
  // Shaped as a UUID (version 8, "custom"), which pg-boss's id column requires.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function enqueueDelivery(ctx: Jobs, tx: Tx, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await enqueueInTransaction(ctx.jobs, tx, WEBHOOK_DELIVERY_QUEUE, job, {
    // Automatic attempts have fixed ids, so a redispatch or a re-run job cannot double one; manual ones are each new.
    ...(job.manual ? {} : { id: scheduledJobId(job), singletonKey: `${job.endpoint_id}:${job.event_id}` }),
    // One attempt at a time per endpoint (jobs/webhook-delivery.ts): a slow endpoint delays only itself.
    group: { id: job.endpoint_id },
    // The job records a failed attempt and schedules the next itself; pg-boss retries only a job
    // that crashed or threw (e.g. the database was away while recording), which makes its attempt again.
    retryLimit: 3,
    retryDelay: 30,
    ...(startAfter ? { startAfter } : {}),
  });
}

/** The relay's subscriber: one delivery job per (enabled, subscribed endpoint of a user in the event's audience, event). */
export function webhookSubscriber(ctx: Jobs): EventSubscriber {
  return async (tx, events) => {
    const endpoints = await enabledEndpointsOf(tx, [...new Set(events.flatMap((e) => e.audienceUserIds))]);
    if (!endpoints.length) return;
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (!event.audienceUserIds.includes(endpoint.userId)) continue;
        if (endpoint.eventTypes && !endpoint.eventTypes.includes(event.type)) continue;
        await enqueueDelivery(ctx, tx, { endpoint_id: endpoint.id, event_id: event.id, retry_index: 0, manual: false });
      }
    }
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

/** Disables the endpoint and tells its owner (the event webhook_endpoint.disabled). */
async function disable(
  tx: Tx,
  endpoint: WebhookEndpointRow,
  changes: { disabledAt: Date; disabledReason: 'gone' | 'failing'; failingSince: Date },
) {
  const row = await setEndpointHealth(tx, endpoint.id, changes);
  if (row) await webhookEndpointEvent(tx, 'webhook_endpoint.disabled', row, null);
}

/** What the delivery job does: one attempt, recorded, then the next scheduled or the endpoint disabled. */
export async function runDeliveryJob(ctx: Db & Settings & Jobs & Pick<Context, 'log'>, job: DeliveryJob): Promise<void> {
  const endpoint = await endpointForDelivery(ctx.db, job.endpoint_id);
  // Deleted or disabled since the job was enqueued: nothing to do.
  if (!endpoint || endpoint.disabledAt) return;
  const event = await getEventById(ctx.db, job.event_id);
  if (!event) return;
  const result = await attempt(ctx, endpoint, { id: event.id, body: JSON.stringify(presentEvent(event)) });
  await ctx.db.transaction((tx) => recordAttempt(ctx, tx, job, event, result));
}

async function recordAttempt(
  ctx: Settings & Jobs & Pick<Context, 'log'>,
  tx: Tx,
  job: DeliveryJob,
  event: EventRow,
  result: DeliveryResult,
) {
  const endpoint = await endpointForDelivery(tx, job.endpoint_id, true);
  if (!endpoint) return; // deleted during the attempt
  const now = new Date();
  const scale = ctx.config.webhookRetryScale;
  const ok = result.error === null;
  let nextRetryAt: Date | null = null;
  if (ok) {
    if (endpoint.failingSince) await setEndpointHealth(tx, endpoint.id, { failingSince: null });
  } else if (result.status === 410) {
    await disable(tx, endpoint, { disabledAt: now, disabledReason: 'gone', failingSince: endpoint.failingSince ?? now });
    ctx.log.warn({ endpointId: endpoint.id, userId: endpoint.userId }, 'webhook endpoint answered 410 Gone: disabled');
  } else {
    const failingSince = endpoint.failingSince ?? now;
    if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS * scale) {
      await disable(tx, endpoint, { disabledAt: now, disabledReason: 'failing', failingSince });
      ctx.log.warn(
        { endpointId: endpoint.id, userId: endpoint.userId, failingSince },
        'webhook endpoint failed every attempt for 5 days: disabled',
      );
    } else {
      if (!endpoint.failingSince) await setEndpointHealth(tx, endpoint.id, { failingSince });
      const delay = job.manual || endpoint.disabledAt ? null : nextDelayMs(job.retry_index, result, scale);
      if (delay !== null) {
        nextRetryAt = new Date(now.getTime() + delay);
        await enqueueDelivery(ctx, tx, { ...job, retry_index: job.retry_index + 1 }, nextRetryAt);
      }
    }
  }
  await insertDelivery(tx, {
    id: newId(),
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    attempt: (await attemptsOf(tx, endpoint.id, event.id)) + 1,
    ...resultColumns(result),
    nextRetryAt,
  });
}
