// The event feed. The rules live in src/services/event-feed.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { DEFAULT_LIMIT, decodePosition, page } from '../src/http/pagination.ts';
import { validationFailed } from '../src/errors.ts';
import { commaList } from '../src/http/comma-list.ts';
import { isEventType, type EventType } from '../src/domain/events.ts';
import { listEvents } from '../src/services/event-feed.ts';
import { presentEvent } from '../src/presenters/events.ts';

/** `type`: a comma-separated list of catalog types, at most 20. */
function typesOf(value: string | undefined): EventType[] | undefined {
  if (value === undefined) return undefined;
  const types = commaList('type', value, 20, 64);
  const unknown = types.filter((t) => !isEventType(t));
  if (types.length === 0 || types.length > 20 || unknown.length) {
    throw validationFailed(
      'query.type',
      unknown.length ? `is not an event type of the catalog: ${unknown.slice(0, 3).join(', ')}` : 'must list 1 to 20 event types',
    );
  }
  return types as EventType[];
}

export function eventHandlers(): Handlers<'listEvents'> {
  return {
    async listEvents(request, _reply, { ctx }) {
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      if (q.after !== undefined && q.cursor !== undefined) throw validationFailed('query.cursor', 'give either after or cursor, not both');
      const position = decodePosition(q.cursor) ?? (q.after !== undefined ? { afterId: q.after } : undefined);
      const rows = await listEvents(ctx, actorOf(request), {
        limit,
        ...position,
        types: typesOf(q.type),
        resourceId: q.resource_id,
      });
      return page(rows, limit, presentEvent, position?.afterId !== undefined ? 'after' : 'before');
    },
  };
}
