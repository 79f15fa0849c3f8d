// Webhook endpoints: registering, changing, rotating the secret, listing attempts, sending a test,
// redelivering and replaying. Delivery itself is in webhook-delivery.ts (docs/architecture.md §6).
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import {
  countEndpoints,
  deleteEndpoint,
  failedEventIds,
  getDelivery,
  getEndpoint,
  insertDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  lockUserForEndpoints,
  updateEndpoint,
  type EndpointChanges,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../db/repositories/webhooks.ts';
import { isEventType } from '../domain/events.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { newId } from '../ids.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import { checkWebhookUrl, type DeliveryResult, WebhookUrlError } from '../webhooks/safe-delivery.ts';
import { callNow, type Outside } from '../outside.ts';
import { attempt, enqueueDelivery, resultColumns, urlOptions } from './webhook-delivery.ts';

type Db = Pick<Context, 'db'>;
type Settings = Pick<Context, 'config'>;
type Jobs = Pick<Context, 'jobs'>;

/** Endpoints one user may have; the 21st is 409 CONFLICT. Enough for an agent per environment, few enough to bound the fan-out of one event. */
export const MAX_ENDPOINTS_PER_USER = 20;
/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3600 * 1000;
/** Replay re-sends at most this many messages per request. */
export const MAX_REPLAY = 1000;
export const TEST_EVENT_TYPE = 'webhook.test';

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

/** An endpoint's URL and types, checked (the URL's host resolved to a public address). */
export interface CheckedEndpoint {
  url: string;
  description: string;
  eventTypes: string[] | null;
}

/** Registering's outside step: the URL is checked (its host looked up) with no transaction open. */
export async function checkEndpoint(ctx: Settings, input: EndpointInput, outside: Outside = callNow): Promise<CheckedEndpoint> {
  const eventTypes = checkedEventTypes(input.eventTypes);
  const url = await outside('url', () => checkedUrl(ctx.config, input.url));
  return { url, description: input.description?.trim() ?? '', eventTypes };
}

/** Registers a checked endpoint; returns it with its secret (shown to the caller this once). */
export async function createWebhookEndpoint(ctx: Db, actor: Actor, endpoint: CheckedEndpoint) {
  return ctx.db.transaction(async (tx) => {
    await lockUserForEndpoints(tx, actor.userId);
    if ((await countEndpoints(tx, actor.userId)) >= MAX_ENDPOINTS_PER_USER) {
      throw conflict(`you have ${MAX_ENDPOINTS_PER_USER} webhook endpoints, the most allowed; delete one first`);
    }
    return insertEndpoint(tx, actor.userId, { id: newId(), ...endpoint, secret: newWebhookSecret() });
  });
}

export function listWebhookEndpoints(ctx: Db, actor: Actor, page: { limit: number; beforeId?: string }) {
  return listEndpoints(ctx.db, actor.userId, page);
}

export async function getWebhookEndpoint(ctx: Db, actor: Actor, id: string): Promise<WebhookEndpointRow> {
  const row = await getEndpoint(ctx.db, actor.userId, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** Changes an endpoint; `enabled: true` re-enables a disabled one (its failing streak forgotten), `false` disables it. */
export async function updateWebhookEndpoint(
  ctx: Db & Settings,
  actor: Actor,
  id: string,
  patch: Partial<EndpointInput> & { enabled?: boolean },
): Promise<WebhookEndpointRow> {
  await getWebhookEndpoint(ctx, actor, id); // 404 before judging the body
  const changes: EndpointChanges = {};
  if (patch.url !== undefined) changes.url = await checkedUrl(ctx.config, patch.url);
  if (patch.description !== undefined) changes.description = patch.description.trim();
  if (patch.eventTypes !== undefined) changes.eventTypes = checkedEventTypes(patch.eventTypes);
  if (patch.enabled === true) Object.assign(changes, { disabledAt: null, disabledReason: null, failingSince: null });
  if (patch.enabled === false) Object.assign(changes, { disabledAt: new Date(), disabledReason: 'manual' });
  const row = await updateEndpoint(ctx.db, actor.userId, id, changes);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

export async function deleteWebhookEndpoint(ctx: Db, actor: Actor, id: string): Promise<WebhookEndpointRow> {
  const row = await deleteEndpoint(ctx.db, actor.userId, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** A new secret; the current one keeps signing beside it for 24 h (a secret older than that is dropped). */
export async function rotateWebhookSecret(ctx: Db, actor: Actor, id: string): Promise<WebhookEndpointRow> {
  return ctx.db.transaction(async (tx) => {
    const current = await getEndpoint(tx, actor.userId, id, true);
    if (!current) throw notFound('webhook endpoint');
    const row = await updateEndpoint(tx, actor.userId, id, {
      secret: newWebhookSecret(),
      previousSecret: current.secret,
      previousSecretUntil: new Date(Date.now() + PREVIOUS_SECRET_OVERLAP_MS),
    });
    return row!;
  });
}

export async function listWebhookDeliveries(ctx: Db, actor: Actor, endpointId: string, page: { limit: number; beforeId?: string }) {
  await getWebhookEndpoint(ctx, actor, endpointId);
  return listDeliveries(ctx.db, actor.userId, endpointId, page);
}

/** A test message sent, and what came of it. */
export interface TestDelivery {
  endpointId: string;
  messageId: string;
  result: DeliveryResult;
}

/** Sends a signed test message (type `webhook.test`) now, once, with no transaction open. */
export async function sendTestDelivery(ctx: Db & Settings, actor: Actor, id: string, outside: Outside = callNow): Promise<TestDelivery> {
  const endpoint = await getWebhookEndpoint(ctx, actor, id);
  const messageId = newId();
  const body = JSON.stringify({
    id: messageId,
    type: TEST_EVENT_TYPE,
    created_at: new Date().toISOString(),
    data: { endpoint_id: endpoint.id, message: 'A test delivery from gigmarket.' },
  });
  return outside('delivery', async () => ({
    endpointId: endpoint.id,
    messageId,
    result: await attempt(ctx, endpoint, { id: messageId, body }),
  }));
}

/** Records the test message's attempt. */
export function recordTestDelivery(ctx: Db, test: TestDelivery): Promise<WebhookDeliveryRow> {
  return insertDelivery(ctx.db, {
    id: newId(),
    endpointId: test.endpointId,
    eventId: test.messageId,
    eventType: TEST_EVENT_TYPE,
    attempt: 1,
    ...resultColumns(test.result),
  });
}

function requireEnabled(endpoint: WebhookEndpointRow) {
  if (endpoint.disabledAt)
    throw new ApiError('INVALID_STATE', 'the webhook endpoint is disabled; enable it first (PATCH with enabled: true)');
}

/** Sends one delivery's event again (one attempt, no retries after it), as a job. */
export async function redeliver(ctx: Db & Jobs, actor: Actor, endpointId: string, deliveryId: string): Promise<{ queued: number }> {
  const endpoint = await getWebhookEndpoint(ctx, actor, endpointId);
  const delivery = await getDelivery(ctx.db, actor.userId, endpointId, deliveryId);
  if (!delivery) throw notFound('delivery');
  if (delivery.eventType === TEST_EVENT_TYPE) throw new ApiError('INVALID_STATE', 'a test message is not redelivered: send another test');
  requireEnabled(endpoint);
  await ctx.db.transaction((tx) =>
    enqueueDelivery(ctx, tx, { endpoint_id: endpointId, event_id: delivery.eventId, retry_index: 0, manual: true }),
  );
  return { queued: 1 };
}

/** Sends again every event whose attempts to this endpoint since `since` all failed (one attempt each, no retries). */
export async function replayFailed(ctx: Db & Jobs, actor: Actor, endpointId: string, since: Date): Promise<{ queued: number }> {
  const endpoint = await getWebhookEndpoint(ctx, actor, endpointId);
  requireEnabled(endpoint);
  return ctx.db.transaction(async (tx) => {
    const eventIds = await failedEventIds(tx, endpointId, since, MAX_REPLAY);
    for (const eventId of eventIds)
      await enqueueDelivery(ctx, tx, { endpoint_id: endpointId, event_id: eventId, retry_index: 0, manual: true });
    return { queued: eventIds.length };
  });
}
