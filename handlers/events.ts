// The event feed. The rules live in src/services/event-feed.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { DEFAULT_LIMIT, decodePosition, page } from '../src/http/pagination.ts';
import { validationFailed } from '../src/errors.ts';
import { listEvents } from '../src/services/event-feed.ts';
import { presentEvent } from '../src/presenters/events.ts';

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
        types: q.type, // catalog types, 1 to 20: the spec's schema checked them
        resourceId: q.resource_id,
      });
      return page(rows, limit, presentEvent, position?.afterId !== undefined ? 'after' : 'before');
    },
  };
}
