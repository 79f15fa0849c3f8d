// The event feed: the events a user is in the audience of, for agents that poll instead of
// receiving webhooks. Read newest first, or forward after an event the caller has seen.
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { listEventsForUser, type EventRow } from '../../db/repositories/events.ts';
import type { EventType } from '../domain/events.ts';

export interface FeedQuery {
  limit: number;
  /** Newest first, before this event id (or from the newest). */
  beforeId?: string;
  /** Oldest first, after this event id. */
  afterId?: string;
  types?: EventType[];
  resourceId?: string;
}

/** The caller's events (limit + 1 rows, for paging). */
export function listEvents(ctx: Pick<Context, 'db'>, actor: Actor, query: FeedQuery): Promise<EventRow[]> {
  return listEventsForUser(ctx.db, actor.userId, query);
}
