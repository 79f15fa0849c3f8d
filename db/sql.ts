// Raw SQL helpers shared by the repositories and by discovery's ranking SQL (src/search), on
// Drizzle's own `sql` tag: every value of a statement is a bound parameter.
import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from './types.ts';

/** Raw rows from db.execute, whichever driver (postgres.js returns an array, PGlite `{ rows }`). */
export async function rowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** `$1, $2, ...`: each item a parameter. */
export const list = (items: readonly string[]): SQL =>
  sql.join(
    items.map((item) => sql.param(item)),
    sql`, `,
  );
export const textArray = (items: readonly string[]) => (items.length ? sql`ARRAY[${list(items)}]::text[]` : sql`'{}'::text[]`);
