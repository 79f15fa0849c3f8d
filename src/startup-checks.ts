// Settings that are unsafe together, said at start (docs/guide/production.md, "Security notes for
// operators"): the server refuses the ones that hand out accounts, and warns about the ones an
// operator may mean.
import { sql } from 'drizzle-orm';
import { devSignInEnabled, isLoopbackHost, type Config } from './config.ts';
import type { Database } from '../db/client.ts';
import { listenHearsNotify } from '../db/listen.ts';
import { rowsOf } from '../db/sql.ts';

/**
 * Refuses to start with the dev sign-in on while PUBLIC_URL is not this machine: people reach the
 * server under that name, most likely through a reverse proxy on this machine, which the dev
 * sign-in cannot always tell from a local browser (src/auth/dev-sign-in.ts).
 */
export function refuseUnsafeSettings(config: Config): void {
  if (!devSignInEnabled(config) || config.devSignInUnsafeAllowRemote) return;
  const host = new URL(config.publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopbackHost(host)) return;
  throw new Error(
    `PUBLIC_URL (${config.publicUrl}) is not this machine, and the dev sign-in (anyone who reaches /auth/dev becomes any user) is on: ` +
      'configure GitHub sign-in (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET) or set NODE_ENV=production; ' +
      'on a private test network only, DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true starts it anyway',
  );
}

/** What the server logs at warn once it listens: settings that are allowed but easy to regret. */
export function startupWarnings(config: Config): { msg: string; [field: string]: unknown }[] {
  const warnings: { msg: string; [field: string]: unknown }[] = [];
  if (devSignInEnabled(config)) {
    warnings.push(
      config.devSignInUnsafeAllowRemote
        ? {
            msg: 'DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: anyone who reaches this server can sign in as any user at /auth/dev',
            host: config.host,
            publicUrl: config.publicUrl,
          }
        : {
            msg:
              'the dev sign-in is on (no GitHub OAuth client, NODE_ENV is not production): anyone on this machine can sign in as any user at /auth/dev. ' +
              'Before this server is reachable from elsewhere (a reverse proxy included), configure GitHub sign-in or set NODE_ENV=production',
          },
    );
  }
  if (config.trustProxy === true) {
    warnings.push({
      msg:
        'TRUST_PROXY=true believes every X-Forwarded-For entry: behind a proxy that appends to the header, a client chooses its own address ' +
        '(and so its rate-limit budget). Set the number of proxies in front of the server (TRUST_PROXY=1) or their addresses instead',
    });
  }
  return warnings;
}

/** How long LISTEN may take to hear the start-up's own NOTIFY: milliseconds on a direct connection. */
const LISTEN_PROBE_MS = 5000;
const POOLER_GUIDE = 'docs/guide/production.md#through-a-connection-pooler';

/**
 * Refuses a server Postgres reached in a way the server would misbehave on, before the migrations:
 * a pooler in transaction mode not declared (DATABASE_POOLER=transaction), or a DATABASE_DIRECT_URL
 * that is not direct. The test is the behaviour itself: PgBouncer refuses the settings a connection
 * sends at start, and a LISTEN through a transaction pool never hears a NOTIFY. Through a declared
 * pooler, the settings the server cannot send are read back, and warned about when the database
 * does not have them.
 */
export async function checkDatabaseConnection(database: Database, config: Config, warn: (msg: string) => void): Promise<void> {
  if (database.kind !== 'postgres') return;
  const pooled = config.databaseDirectUrl !== undefined;
  try {
    await database.db.execute(sql`select 1`);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    if (!/unsupported startup parameter/.test(cause)) throw err;
    throw new Error(
      `DATABASE_URL goes through a connection pooler, which refused a setting sent at connect (${cause}): through PgBouncer in transaction mode, ` +
        'set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL (the same database without the pooler, for LISTEN and migrations); ' +
        `in session mode, point DATABASE_URL at Postgres or add the setting to ignore_startup_parameters and set it on the database (${POOLER_GUIDE})`,
    );
  }
  if (!(await listenHearsNotify(database, LISTEN_PROBE_MS))) {
    throw new Error(
      pooled
        ? `a LISTEN on DATABASE_DIRECT_URL did not hear a NOTIFY sent through DATABASE_URL within ${LISTEN_PROBE_MS / 1000} s: ` +
            `DATABASE_DIRECT_URL must reach Postgres directly, not through the transaction pooler (${POOLER_GUIDE})`
        : `a LISTEN on DATABASE_URL did not hear a NOTIFY sent through it within ${LISTEN_PROBE_MS / 1000} s: DATABASE_URL goes through a pooler in transaction mode ` +
            "(PgBouncer's pool_mode = transaction), through which LISTEN, prepared statements and session locks do not hold. " +
            `Set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL (the same database without the pooler, for LISTEN and migrations) (${POOLER_GUIDE})`,
    );
  }
  if (pooled) {
    for (const msg of await poolerSettingsMissing(database, config)) warn(msg);
  }
}

/** Through a transaction pooler: the settings the server would have sent at connect that the database does not have. */
async function poolerSettingsMissing(database: Database, config: Config): Promise<string[]> {
  const rows = await rowsOf<{ name: string; setting: string }>(
    database.db,
    sql`select name, setting from pg_settings where name in ('jit', 'statement_timeout', 'idle_in_transaction_session_timeout')`,
  );
  const has = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  const wanted: Record<string, string> = {
    jit: 'off',
    statement_timeout: String(config.databaseTimeLimits.statementTimeoutMs),
    idle_in_transaction_session_timeout: String(config.databaseTimeLimits.idleInTransactionTimeoutMs),
  };
  const missing = Object.entries(wanted).filter(([name, value]) => has[name] !== value);
  if (missing.length === 0) return [];
  return [
    `through the pooler (DATABASE_POOLER=transaction) the server sends no settings at connect, and the database has ${missing.map(([n]) => `${n} = ${has[n]}`).join(', ')}: ` +
      `set ${missing.map(([n, v]) => `ALTER DATABASE … SET ${n} = ${n === 'jit' ? v : `'${v}ms'`}`).join('; ')} (${POOLER_GUIDE})`,
  ];
}
