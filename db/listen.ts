// LISTEN on a channel, on either database, and say whether this process is hearing it right now.
// A notification sent while the connection is down is lost; `onLive(false)` tells the listener so,
// and `onLive(true)` comes only once LISTEN is in place again. Used by caches that must forget a
// row as soon as another process changes it.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Database } from './client.ts';

export interface ListenHandlers {
  onNotify(payload: string): void;
  onLive(live: boolean): void;
}

export interface Listener {
  stop(): Promise<void>;
}

const RETRY_MS = [100, 500, 1000, 2000, 5000];

/** Channel names are ours (a constant), never input; quoted all the same. */
const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

/** `applicationName` tells the listening connections apart in pg_stat_activity. */
export async function listen(
  database: Database,
  channel: string,
  handlers: ListenHandlers,
  applicationName = 'gigmarket-listen',
): Promise<Listener> {
  if (database.kind === 'pglite') {
    // One process holds a PGlite database: no connection to lose.
    const unlisten = await database.pglite.listen(channel, handlers.onNotify);
    handlers.onLive(true);
    return {
      async stop() {
        handlers.onLive(false);
        await unlisten();
      },
    };
  }
  return listenOnServer(database.directUrl, channel, handlers, applicationName);
}

/**
 * A connection of its own (node-postgres: its client says when the connection ends, which
 * postgres.js's sql.listen does not): down -> not live, then connect and LISTEN again with backoff.
 */
async function listenOnServer(url: string, channel: string, handlers: ListenHandlers, applicationName: string): Promise<Listener> {
  let stopped = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  let client: pg.Client | undefined;

  function lost(which: pg.Client) {
    if (which !== client) return; // an earlier client, already replaced
    client = undefined;
    handlers.onLive(false);
    which.end().catch(() => {});
    if (!stopped) schedule();
  }

  async function subscribe(): Promise<void> {
    const next = new pg.Client({ connectionString: url, application_name: applicationName });
    client = next;
    next.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) handlers.onNotify(n.payload);
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`listen ${quoted(channel)}`);
      if (stopped || client !== next) return;
      attempt = 0;
      handlers.onLive(true);
    } catch {
      lost(next);
    }
  }

  function schedule() {
    if (timer) return;
    const delay = RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]!;
    timer = setTimeout(() => {
      timer = undefined;
      void subscribe();
    }, delay);
    timer.unref();
  }

  await subscribe();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      handlers.onLive(false);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

/**
 * Whether LISTEN, where this process listens (the database's directUrl), hears a NOTIFY sent
 * through its pool within `timeoutMs`. Through a pooler in transaction mode it does not: the
 * LISTEN's server connection goes back to the pool at once, and its notifications reach whichever
 * client holds that connection next.
 */
export async function listenHearsNotify(database: Database, timeoutMs: number): Promise<boolean> {
  if (database.kind === 'pglite') return true;
  const channel = 'gm_listen_probe';
  const token = randomUUID();
  const client = new pg.Client({ connectionString: database.directUrl, application_name: 'gigmarket-listen-probe' });
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    await client.connect();
    const heard = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      client.on('notification', (n) => {
        if (n.channel === channel && n.payload === token) resolve(true);
      });
    });
    await client.query(`listen ${quoted(channel)}`);
    await database.db.execute(sql`select pg_notify(${channel}, ${token})`);
    return await heard;
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}
