// Events as the API shows them (schema Event): the same object a webhook delivery carries.
import type { EventRow } from '../../db/repositories/events.ts';
import type { components } from '../generated/api.d.ts';
import { isoTimestamp } from './timestamps.ts';

export type ApiEvent = components['schemas']['Event'];

/** `data` was stored as the API showed the resource when the event was written, so it has its type's shape. */
export function presentEvent(e: EventRow): ApiEvent {
  const actor = e.actorUserId ? { user_id: e.actorUserId, api_key_id: e.actorApiKeyId, hosted_agent_id: e.actorHostedAgentId } : null;
  return { id: e.id, type: e.type, created_at: isoTimestamp(e.createdAt), actor, data: e.data } as ApiEvent;
}
