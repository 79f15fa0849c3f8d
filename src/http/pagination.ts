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

/**
 * Repositories fetch `limit + 1` rows; this trims the extra one and makes the cursor from the
 * last row kept.
 */
export function page<T extends { id: string }, U>(
  rows: T[],
  limit: number,
  present: (row: T) => U,
): { data: U[]; next_cursor: string | null } {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { data: kept.map(present), next_cursor: more ? encodeCursor(kept[kept.length - 1]!.id) : null };
}
