// Cursors for ranked lists. A ranked page ends at (score, id); the next page holds the items
// below it in the order (score desc, id desc). The cursor carries that position, the time the
// first page was ranked at (freshness is computed as of then, so scores do not drift between
// pages) and a fingerprint of the request: it only continues the same query.
import { hash } from 'node:crypto';
import { validationFailed } from '../errors.ts';
import { UUID_PATTERN } from '../ids.ts';
import { openCursor, sealCursor } from '../cursor-seal.ts';

/** The latest time a JavaScript Date can hold. */
const MAX_TIME = 8.64e15;

export interface RankedPosition {
  /** Milliseconds since the epoch: the time the first page was ranked at. */
  asOf: number;
  score: number;
  id: string;
  /**
   * Two-phase searches: the database's time of the first page, in microseconds since the epoch
   * (a number keeps the cursor within its 200 characters); later pages leave out gigs created since.
   */
  createdBefore?: number;
}

/** A short fingerprint of what defines the ranking (the query and its filters, not the limit). */
export function fingerprint(parts: unknown): string {
  return hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 16);
}

export function encodeRankedCursor(print: string, p: RankedPosition): string {
  return sealCursor({ f: print, t: p.asOf, s: p.score, i: p.id, ...(p.createdBefore !== undefined ? { c: p.createdBefore } : {}) });
}

/** The position to continue after, or undefined for the first page; any other cursor is a 400 on query.cursor. */
export function decodeRankedCursor(cursor: string | undefined, print: string): RankedPosition | undefined {
  if (cursor === undefined) return undefined;
  const value = openCursor(cursor) as { f?: unknown; t?: unknown; s?: unknown; i?: unknown; c?: unknown } | null | undefined;
  // Sealed, so made here; the ranges are checked all the same (a time must be one Date can hold).
  if (
    !value ||
    typeof value.t !== 'number' ||
    typeof value.s !== 'number' ||
    typeof value.i !== 'string' ||
    !Number.isSafeInteger(value.t) ||
    value.t < 0 ||
    value.t > MAX_TIME ||
    !Number.isFinite(value.s) ||
    !UUID_PATTERN.test(value.i) ||
    (value.c !== undefined && (typeof value.c !== 'number' || !Number.isSafeInteger(value.c) || value.c < 0))
  ) {
    throw validationFailed('query.cursor', 'is not a cursor this API returned');
  }
  if (value.f !== print)
    throw validationFailed('query.cursor', 'belongs to a different query; repeat the query and its filters to continue');
  return { asOf: value.t, score: value.s, id: value.i, ...(value.c !== undefined ? { createdBefore: value.c as number } : {}) };
}

/**
 * Ranked lists fetch `limit + 1` rows: this keeps `limit` of them and makes the next cursor from
 * the last one kept (null on the last page).
 */
export function rankedPage<T extends { id: string; score: number }>(
  rows: T[],
  limit: number,
  print: string,
  asOf: number,
  createdBefore?: number,
): { kept: T[]; nextCursor: string | null } {
  const kept = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    kept,
    nextCursor: rows.length > limit && last ? encodeRankedCursor(print, { asOf, score: last.score, id: last.id, createdBefore }) : null,
  };
}
