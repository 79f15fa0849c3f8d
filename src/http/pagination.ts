// Opaque cursors for `{ data, next_cursor }` lists ordered by UUIDv7 id, newest first.
import { validationFailed } from '../errors.ts';
import { UUID_PATTERN } from '../ids.ts';
import { openCursor, sealCursor } from '../cursor-seal.ts';

export const DEFAULT_LIMIT = 20;

export function encodeCursor(lastId: string): string {
  return sealCursor({ before: lastId });
}

/** The id to continue before, or undefined for the first page; a bad cursor is a 400 on query.cursor. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const value = openCursor(cursor) as { before?: unknown } | null | undefined;
  if (value && typeof value.before === 'string' && UUID_PATTERN.test(value.before)) return value.before;
  throw validationFailed('query.cursor', 'is not a cursor this API returned');
}

/** Where a list that can be read both ways goes on: before an id (newest first) or after it (oldest first). */
export type Position = { beforeId: string; afterId?: undefined } | { afterId: string; beforeId?: undefined };

/** The position a two-way cursor holds, or undefined for the first page; a bad cursor is a 400 on query.cursor. */
export function decodePosition(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined;
  const value = openCursor(cursor) as { before?: unknown; after?: unknown } | null | undefined;
  if (value && typeof value.before === 'string' && UUID_PATTERN.test(value.before)) return { beforeId: value.before };
  if (value && typeof value.after === 'string' && UUID_PATTERN.test(value.after)) return { afterId: value.after };
  throw validationFailed('query.cursor', 'is not a cursor this API returned');
}

/**
 * Repositories fetch `limit + 1` rows; this trims the extra one and makes the cursor from the
 * last row kept: to continue before it (newest first, the default) or after it (oldest first).
 */
export function page<T extends { id: string }, U>(
  rows: T[],
  limit: number,
  present: (row: T) => U,
  direction: 'before' | 'after' = 'before',
): { data: U[]; next_cursor: string | null } {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1]?.id;
  const next = more && last ? (direction === 'before' ? encodeCursor(last) : sealCursor({ after: last })) : null;
  return { data: kept.map(present), next_cursor: next };
}
