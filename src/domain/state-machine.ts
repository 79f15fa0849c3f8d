// State machines as data: each aggregate declares its transitions; one function applies them.
import { ApiError } from '../errors.ts';
import type { EventType } from './events.ts';

export interface Transition<S extends string, A extends string> {
  action: A;
  from: readonly S[];
  to: S;
  /** The event type written to the outbox when this transition happens. */
  event: EventType;
}

export type TransitionTable<S extends string, A extends string> = readonly Transition<S, A>[];

/** The transition for `action` from `current`, or INVALID_STATE naming the status. */
export function transition<S extends string, A extends string>(
  table: TransitionTable<S, A>,
  resource: string,
  current: S,
  action: A,
): Transition<S, A> {
  const match = table.find((t) => t.action === action && t.from.includes(current));
  if (!match) {
    const allowed = table.filter((t) => t.action === action).flatMap((t) => t.from);
    throw new ApiError(
      'INVALID_STATE',
      `cannot ${action} a ${resource} that is ${current}` + (allowed.length ? ` (allowed from: ${allowed.join(', ')})` : ''),
    );
  }
  return match;
}
