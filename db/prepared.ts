// Hot reads as prepared queries: Drizzle builds a query's SQL text on every call (walking its
// columns and conditions), which costs more CPU than the database's answer to a read by primary
// key. A prepared query is built once per database handle and then runs with its placeholders
// filled. Given a transaction it is built for that transaction, so it reads what the transaction
// wrote; given the database (most reads) it is built once per process.
import type { Executor } from './types.ts';

/** What Drizzle's `.prepare(name)` answers, as far as this module uses it. */
interface Executable<R> {
  execute(placeholders?: Record<string, unknown>): Promise<R>;
}

/** `build` makes the query on a handle, with `sql.placeholder(...)` for each value, and ends with Drizzle's `.prepare(name)`; the result runs it on the handle it is given (the database, or a transaction). */
export function preparedQuery<P extends Record<string, unknown>, R>(
  name: string,
  build: (db: Executor, name: string) => Executable<R>,
): (db: Executor, placeholders: P) => Promise<R> {
  const built = new WeakMap<object, Executable<R>>();
  return (db, placeholders) => {
    let query = built.get(db);
    if (!query) built.set(db, (query = build(db, name)));
    return query.execute(placeholders);
  };
}
