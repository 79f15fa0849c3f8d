// postgres.js through a pooler in transaction mode. postgres.js pipelines a statement onto a
// connection that is still busy when none is free; a statement without parameters is sent whole
// (Parse, Bind, Execute, Sync), and one with parameters sent behind it starts with Parse and
// Describe and waits for the parameters' types. PgBouncer 1.18 (Debian 12's) hands the server
// connection back to its pool at the first statement's ReadyForQuery, so the second one's answer
// reaches no client: PgBouncer logs "got packet '1' from server when not linked" and closes that
// server connection, and the statement waits for ever. Here each statement outside a transaction
// takes a connection of its own for its duration (sql.reserve()), so nothing is ever sent behind
// it; a transaction already holds its connection (and PgBouncer its server connection) to the end.
import type postgres from 'postgres';
import { pendingQuery, replacing } from './wrapped-client.ts';

type Unsafe = postgres.Sql['unsafe'];

/** The client, its statements outside transactions each on a reserved connection; a tagged template on it throws; everything else is the client's own. */
export function unpipelined(client: postgres.Sql): postgres.Sql {
  const alone = async <T>(run: (connection: postgres.ReservedSql) => Promise<T>): Promise<T> => {
    const connection = await client.reserve();
    try {
      return await run(connection);
    } finally {
      connection.release();
    }
  };
  const unsafe = (...args: Parameters<Unsafe>) =>
    pendingQuery((values) => alone(async (c) => (values ? c.unsafe(...args).values() : c.unsafe(...args))));
  return replacing(client, { unsafe }, 'db/unpipelined.ts');
}
