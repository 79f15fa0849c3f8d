// Webhook endpoints and their delivery attempts as the API shows them (schemas WebhookEndpoint, WebhookDelivery).
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/repositories/webhooks.ts';
import type { components } from '../generated/api.d.ts';
import { isoTimestamp, isoTimestampOrNull } from './timestamps.ts';

type ApiEndpoint = components['schemas']['WebhookEndpoint'];
type ApiDelivery = components['schemas']['WebhookDelivery'];

/** An endpoint as the API shows it. The secret is never part of it. */
export function presentWebhookEndpoint(row: WebhookEndpointRow): ApiEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    // Stored only after the catalog's check (the spec's EventType, and src/services/webhooks.ts).
    event_types: row.eventTypes as ApiEndpoint['event_types'],
    enabled: row.disabledAt === null,
    disabled_at: isoTimestampOrNull(row.disabledAt),
    disabled_reason: row.disabledReason as ApiEndpoint['disabled_reason'],
    failing_since: isoTimestampOrNull(row.failingSince),
    previous_secret_until: row.previousSecretUntil && row.previousSecretUntil > new Date() ? isoTimestamp(row.previousSecretUntil) : null,
    created_at: isoTimestamp(row.createdAt),
    updated_at: isoTimestamp(row.updatedAt),
  };
}

/** The endpoint with its secret: only the answers to creating it and rotating its secret. */
export function presentWebhookEndpointWithSecret(row: WebhookEndpointRow) {
  return { ...presentWebhookEndpoint(row), secret: row.secret };
}

export function presentWebhookDelivery(row: WebhookDeliveryRow): ApiDelivery {
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    attempt: row.attempt,
    succeeded: row.succeeded,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    response_excerpt: row.responseExcerpt,
    error: row.error,
    next_retry_at: isoTimestampOrNull(row.nextRetryAt),
    created_at: isoTimestamp(row.createdAt),
  };
}
