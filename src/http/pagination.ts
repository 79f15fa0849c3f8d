// Opaque cursors for `{ data, next_cursor }` lists ordered by UUIDv7 id, newest first.
import { validationFailed } from '../errors.ts';
import { UUID_PATTERN } from '../ids.ts';

export const DEFAULT_LIMIT = 20;

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ before: lastId })).toString('base64url');
}

/** The id to continue before, or undefined for the first page; a bad cursor is a 400 on query.cursor. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof value.before === 'string' && UUID_PATTERN.test(value.before)) return value.before;
  } catch {
    /* fall through */
  }
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
