// Raw SQL helpers shared by the repositories and by discovery's ranking SQL (src/search).
import { is, SQL, sql, StringChunk } from 'drizzle-orm';
import type { Executor } from './client.ts';

/** Raw rows from db.execute, whichever driver (postgres.js returns an array, PGlite `{ rows }`). */
export async function rowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const COMMA = new StringChunk(', ');
/** `$1, $2, ...`: each item a parameter, all in one SQL (a search builds dozens of these; one `sql` per item cost ~23 KB a search). */
export const list = (items: readonly string[]) => new SQL(items.flatMap((item, i) => (i ? [COMMA, item] : [item])));
export const textArray = (items: readonly string[]) => (items.length ? sql`ARRAY[${list(items)}]::text[]` : sql`'{}'::text[]`);

/** Values Drizzle sends as parameters as they are. */
const PLAIN = new Set(['string', 'number', 'boolean', 'bigint']);

/**
 * The same statement as `query`, as one level of text and values. Drizzle builds a statement's
 * text by merging each nested `sql` with its parent, strings and parameter arrays copied at every
 * level: for discovery's ranking statement (a few thousand characters, nested ten deep) that
 * allocated 115-300 KB per search, the largest part of what the request allocates. One walk
 * here, then Drizzle's build over a flat list, gives the same text and parameters (tests compare
 * them). Only `sql`, `sql.raw`, `sql.join` and plain values are flattened; a query holding
 * anything else (columns, tables, placeholders, arrays, encoded params) is returned as it is.
 */
export function flatSql(query: SQL): SQL {
  const chunks: unknown[] = [];
  let text = '';
  /** False when the tree holds something only Drizzle's own build knows how to write. */
  const walk = (list: readonly unknown[]): boolean => {
    for (const chunk of list) {
      if (is(chunk, StringChunk)) text += chunk.value.join('');
      else if (is(chunk, SQL)) {
        if (!walk(chunk.queryChunks)) return false;
      } else if (chunk === undefined) continue;
      else if (chunk === null || PLAIN.has(typeof chunk) || chunk instanceof Date) {
        chunks.push(new StringChunk(text), chunk);
        text = '';
      } else return false;
    }
    return true;
  };
  if (!walk(query.queryChunks)) return query;
  chunks.push(new StringChunk(text));
  return new SQL(chunks as never[]);
}
