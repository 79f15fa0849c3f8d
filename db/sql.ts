// Raw SQL helpers shared by the repositories and by discovery's ranking SQL (src/search).
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from './client.ts';

/** Raw rows from db.execute, whichever driver (postgres.js returns an array, PGlite `{ rows }`). */
export async function rowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

export const list = (items: readonly string[]) =>
  sql.join(
    items.map((i) => sql`${i}`),
    sql`, `,
  );
export const textArray = (items: readonly string[]) => (items.length ? sql`ARRAY[${list(items)}]::text[]` : sql`'{}'::text[]`);
