// The operator CLI: `npm run -s cli -- <command>`. It works on the database the server uses
// (DATABASE_URL, else PGlite under DATA_DIR) and applies migrations first, so it also works before
// the first `npm start`. Only the result goes to stdout; messages go to stderr.
// Exit codes: 0 done, 1 failed (e.g. unknown user, database in use), 2 usage error.
import { parseArgs } from 'node:util';
import { userActor } from './actor.ts';
import { loadConfig } from './config.ts';
import { migrate, openDatabase, type Database } from '../db/client.ts';
import { getUser, listUsers } from '../db/repositories/users.ts';
import { createUserWithKey, issueApiKey, revokeUserApiKey } from './services/api-keys.ts';
import { acquireDataLock, DataDirLockedError, type DataLock } from './data-lock.ts';
import { ApiError } from './errors.ts';
import { UUID_PATTERN } from './ids.ts';
import pino from 'pino';
import { loadSources, SourcesConfigError, type SourceConfig } from './sources/config.ts';
import { syncSource } from './sources/sync.ts';
import { describeResult, describeSource, presentResult, presentSource } from './sources/report.ts';
import { externalGigCounts } from '../db/repositories/external-gigs.ts';
import { startJobs, type JobSystem } from './job-system/boss.ts';
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE } from './job-system/queues.ts';
import { getCredits, grantCredits, setTier } from './services/credits.ts';
import { rotateReceiptKey } from './services/receipts.ts';
import { isSubscriptionTier, NOTE_MAX, OPERATOR_GRANT_MAX, SUBSCRIPTION_TIERS } from './domain/credits.ts';

const USAGE = `gigmarket operator CLI

Usage: npm run -s cli -- <command> [options]

Commands:
  create-user <display name> [--json]
      Creates a user and a first API key. With --json prints {"user_id": "...", "api_key": "gm_live_..."}.
  list-users [--json]
      Lists users, newest first.
  create-key <user-id> [--name NAME] [--agent HOSTED_AGENT_ID] [--json]
      Creates another API key for a user (name defaults to "cli").
  revoke-key <user-id> <key-id> [--json]
      Revokes one of the user's keys.
  sources list [--json]
      Lists the external gig sources in SOURCES_FILE (default ./sources.json) and their gigs.
  sources sync [name] [--json]
      Syncs one source now (any, even a disabled one), or every enabled source; prints the counts.
      Exits 1 when a source failed (its gigs stay as they were).
  payouts failed [--json]
      Lists the payouts that failed on every retry (parked in the queue milestone-payout-failed).
  payouts redrive [milestone-id] [--json]
      Sends them (or the one for that milestone) again, once the cause is fixed.
  credits show <user-id> [--json]
      Shows a user's credits balance and subscription tier.
  credits grant <user-id> <amount> [--reason TEXT] [--json]
      Grants a user 1 to 1000000 credits (an operator_grant in their ledger, the reason as its
      note, with credits.granted). Every run grants again.
  credits set-tier <user-id> <free|pro|team> [--json]
      Sets a user's subscription tier; its monthly grant applies from the next grant not yet made.
  rotate-receipt-key [--json]
      Retires the key that signs approval receipts and makes a new one. The retired key stays
      published at /.well-known/jwks.json, so the receipts it signed still verify.
  help
      Shows this text.

The database is the server's: DATABASE_URL when set, else PGlite under DATA_DIR (default ./data).
PGlite allows one process at a time, so with PGlite stop the server first (or use the dev
sign-in at /auth/dev, or DATABASE_URL).
`;

class UsageError extends Error {}
class Failure extends Error {}

const AGENT_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

interface Options {
  json: boolean;
  name?: string;
  agent?: string;
  reason?: string;
}

function parse(argv: string[]): { command: string | undefined; args: string[]; options: Options } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        name: { type: 'string' },
        agent: { type: 'string' },
        reason: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [command, ...args] = parsed.positionals;
  const { json, name, agent, reason, help } = parsed.values;
  return { command: help ? 'help' : command, args, options: { json: json ?? false, name, agent, reason } };
}

function userId(value: string | undefined, what = 'user-id'): string {
  if (!value) throw new UsageError(`missing <${what}>`);
  if (!UUID_PATTERN.test(value)) throw new UsageError(`<${what}> must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

function displayName(words: string[]): string {
  const name = words.join(' ').trim();
  if (!name) throw new UsageError('missing <display name>');
  if (name.length > 100) throw new UsageError('<display name> must be at most 100 characters');
  return name;
}

/** Opens the server's database, holding the PGlite lock while the command runs. */
async function openServerDatabase(): Promise<{ database: Database; close(): Promise<void> }> {
  const config = loadConfig();
  let lock: DataLock | undefined;
  if (!config.databaseUrl) {
    try {
      lock = acquireDataLock(config.dataDir);
    } catch (err) {
      if (!(err instanceof DataDirLockedError)) throw err;
      throw new Failure(
        `${err.message}:\nstop the server first, or use the dev sign-in at ${config.publicUrl}/auth/dev, or run both against a server Postgres with DATABASE_URL.`,
      );
    }
  }
  try {
    process.stderr.write(config.databaseUrl ? 'using the Postgres at DATABASE_URL\n' : `using PGlite in ${config.dataDir}\n`);
    // A small pool for one command (migrate() opens connections of its own).
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgliteSharedBuffers: config.pgliteSharedBuffers,
      timeLimits: config.databaseTimeLimits,
      directUrl: config.databaseDirectUrl,
      max: 2,
    });
    await migrate(database);
    return {
      database,
      async close() {
        await database.close();
        lock?.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}
const printJson = (value: unknown): void => print(JSON.stringify(value));

type Action = (database: Database) => Promise<void>;

/** Checks the arguments (usage errors never touch the database) and returns what to do. */
function prepare(command: string, args: string[], options: Options): Action {
  switch (command) {
    case 'create-user': {
      const name = displayName(args);
      return async ({ db }) => {
        const created = await createUserWithKey({ db }, name);
        if (options.json) return printJson({ user_id: created.userId, api_key: created.apiKey });
        print(`Created user "${name}" (id ${created.userId}).`);
        print(`API key (shown once, store it now): ${created.apiKey}`);
      };
    }
    case 'list-users': {
      if (args.length) throw new UsageError('list-users takes no arguments');
      return async ({ db }) => {
        const all = [];
        for (let afterId: string | undefined; ; ) {
          const rows = await listUsers(db, { limit: 500, afterId });
          all.push(...rows);
          if (rows.length < 500) break;
          afterId = rows[rows.length - 1]!.id;
        }
        const shown = all.map((u) => ({
          user_id: u.id,
          display_name: u.displayName,
          github_login: u.githubLogin,
          created_at: u.createdAt.toISOString(),
        }));
        if (options.json) return printJson(shown);
        if (!shown.length) return print('No users yet. Create one with: npm run -s cli -- create-user "Your Name"');
        for (const u of shown)
          print(`${u.user_id}  ${u.display_name}${u.github_login ? `  (GitHub @${u.github_login})` : ''}  created ${u.created_at}`);
      };
    }
    case 'create-key': {
      if (args.length > 1) throw new UsageError('create-key takes one <user-id>; quote a --name with spaces');
      const id = userId(args[0]);
      const name = (options.name ?? 'cli').trim();
      if (!name || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
      if (options.agent !== undefined && !AGENT_PATTERN.test(options.agent))
        throw new UsageError('--agent must match ^[A-Za-z0-9_.:-]{1,128}$');
      return async ({ db }) => {
        if (!(await getUser(db, id))) throw new Failure(`no user with id ${id}`);
        const key = await issueApiKey({ db }, userActor(id), { name, hostedAgentId: options.agent ?? null }).catch((err: unknown) => {
          throw err instanceof ApiError ? new Failure(err.message) : err; // the cap of active keys
        });
        if (options.json)
          return printJson({
            user_id: id,
            api_key_id: key.row.id,
            name: key.row.name,
            hosted_agent_id: key.row.hostedAgentId,
            api_key: key.secret,
          });
        print(`Created key "${key.row.name}" (id ${key.row.id}) for user ${id}.`);
        print(`API key (shown once, store it now): ${key.secret}`);
      };
    }
    case 'revoke-key': {
      if (args.length !== 2) throw new UsageError('revoke-key needs <user-id> <key-id>');
      const uid = userId(args[0]);
      const kid = userId(args[1], 'key-id');
      return async ({ db }) => {
        let row;
        try {
          row = await revokeUserApiKey({ db }, userActor(uid), kid);
        } catch (err) {
          if (err instanceof ApiError) throw new Failure(err.code === 'NOT_FOUND' ? `user ${uid} has no key ${kid}` : err.message);
          throw err;
        }
        if (options.json) return printJson({ api_key_id: row.id, revoked_at: row.revokedAt!.toISOString() });
        print(`Revoked key "${row.name}" (id ${row.id}).`);
      };
    }
    case 'rotate-receipt-key': {
      if (args.length) throw new UsageError('rotate-receipt-key takes no arguments');
      return async ({ db }) => {
        const kid = await rotateReceiptKey(db);
        if (options.json) return printJson({ kid });
        print(`Receipts are now signed with key ${kid}; the retired key stays published for verification.`);
      };
    }
    case 'sources':
      return prepareSources(args, options);
    case 'payouts':
      return preparePayouts(args, options);
    case 'credits':
      return prepareCredits(args, options);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** `sources list` and `sources sync [name]`: the sources file is checked before the database opens. */
function prepareSources(args: string[], options: Options): Action {
  const [sub, name, ...rest] = args;
  if (sub !== 'list' && sub !== 'sync') throw new UsageError('sources needs "list" or "sync [name]"');
  if (rest.length || (sub === 'list' && name))
    throw new UsageError(`sources ${sub} takes ${sub === 'list' ? 'no arguments' : 'at most one <name>'}`);
  const config = loadConfig();
  let sources: SourceConfig[];
  try {
    sources = loadSources(config.sourcesFile);
  } catch (err) {
    if (err instanceof SourcesConfigError) throw new Failure(err.message);
    throw err;
  }
  if (!config.sourcesFile)
    process.stderr.write('no sources configured: set SOURCES_FILE or create ./sources.json (see sources.example.json)\n');
  if (sub === 'list') {
    return async ({ db }) => {
      const counts = await externalGigCounts(db);
      if (options.json) return printJson(sources.map((s) => presentSource(s, counts.get(s.name))));
      for (const s of sources) print(describeSource(s, counts.get(s.name)));
    };
  }
  const chosen = name ? sources.filter((s) => s.name === name) : sources.filter((s) => s.enabled);
  if (name && !chosen.length) throw new Failure(`no source named "${name}" in ${config.sourcesFile ?? 'the (missing) sources file'}`);
  return async ({ db }) => {
    const log = pino({ level: config.logLevel }, pino.destination(2));
    const results = [];
    for (const source of chosen) results.push(await syncSource({ db, log, allowPrivateUrls: config.sourcesAllowPrivateUrls }, source));
    if (options.json) printJson(results.map(presentResult));
    else for (const r of results) print(describeResult(r));
    if (results.some((r) => !r.ok)) throw new Failure(`${results.filter((r) => !r.ok).length} of ${results.length} sources failed`);
  };
}

/** `payouts failed` and `payouts redrive [milestone-id]`, through pg-boss on the server's database. */
function preparePayouts(args: string[], options: Options): Action {
  const [sub, id, ...rest] = args;
  if (sub !== 'failed' && sub !== 'redrive') throw new UsageError('payouts needs "failed" or "redrive [milestone-id]"');
  if (rest.length || (sub === 'failed' && id))
    throw new UsageError(`payouts ${sub} takes ${sub === 'failed' ? 'no arguments' : 'at most one <milestone-id>'}`);
  const milestoneId = id === undefined ? undefined : userId(id, 'milestone-id');
  return async (database) => {
    const jobs = await startJobs(database, pino({ level: 'silent' }), []);
    try {
      if (sub === 'failed') {
        const parked = await parkedPayouts(jobs.boss);
        if (options.json) return printJson(parked);
        if (!parked.length) return print('no failed payout is waiting');
        for (const p of parked) print(`milestone ${p.milestone_id}: failed on every retry, parked since ${p.parked_at}`);
        return;
      }
      const moved = await jobs.boss.redrive(PAYOUT_FAILED_QUEUE, {
        destination: PAYOUT_QUEUE,
        ...(milestoneId ? { data: { milestone_id: milestoneId } } : {}),
      });
      if (options.json) return printJson({ redriven: moved });
      print(moved === 1 ? 'sent 1 payout again' : `sent ${moved} payouts again`);
    } finally {
      await jobs.stop();
    }
  };
}

/** `credits show|grant|set-tier`: the user's credits through src/services/credits.ts. */
function prepareCredits(args: string[], options: Options): Action {
  const [sub, id, value, ...rest] = args;
  const needs = { show: '<user-id>', grant: '<user-id> <amount>', 'set-tier': '<user-id> <tier>' } as Record<string, string>;
  if (!sub || !needs[sub]) throw new UsageError('credits needs "show", "grant" or "set-tier"');
  if (rest.length || (sub === 'show' ? value !== undefined : value === undefined))
    throw new UsageError(`credits ${sub} needs ${needs[sub]}`);
  if (options.reason !== undefined && sub !== 'grant') throw new UsageError('--reason goes with credits grant');
  const uid = userId(id);
  const withUser =
    (act: Action): Action =>
    async (database) => {
      if (!(await getUser(database.db, uid))) throw new Failure(`no user with id ${uid}`);
      await act(database);
    };
  const describe = (c: Awaited<ReturnType<typeof getCredits>>) =>
    `user ${uid}: ${c.credits_balance} credits, ${c.subscription_tier} tier (${c.monthly_grant} a month; next grant ${c.next_grant_at})`;
  if (sub === 'show') {
    return withUser(async ({ db }) => {
      const c = await getCredits({ db }, userActor(uid));
      if (options.json) return printJson({ user_id: uid, ...c });
      print(describe(c));
    });
  }
  if (sub === 'set-tier') {
    if (!isSubscriptionTier(value!)) throw new UsageError(`<tier> must be one of ${SUBSCRIPTION_TIERS.join(', ')}, got "${value}"`);
    const tier = value;
    return withUser(async ({ db }) => {
      const c = await setTier({ db }, uid, tier);
      if (options.json) return printJson({ user_id: uid, ...c });
      print(`${describe(c)}; the tier's grant applies from the next monthly grant`);
    });
  }
  const amount = Number(value);
  if (!/^[0-9]+$/.test(value!) || amount < 1 || amount > OPERATOR_GRANT_MAX)
    throw new UsageError(`<amount> must be a whole number from 1 to ${OPERATOR_GRANT_MAX}, got "${value}"`);
  const note = options.reason?.trim();
  if (note !== undefined && (!note || note.length > NOTE_MAX)) throw new UsageError(`--reason must be 1 to ${NOTE_MAX} characters`);
  return withUser(async ({ db }) => {
    const granted = await grantCredits({ db }, uid, amount, note ?? null);
    if (options.json) return printJson({ user_id: uid, ...granted });
    print(`Granted ${amount} credit${amount === 1 ? '' : 's'} to user ${uid}; balance ${granted.credits_balance}.`);
  });
}

async function parkedPayouts(boss: JobSystem['boss']): Promise<{ milestone_id: string; parked_at: string }[]> {
  if (!(await boss.getQueue(PAYOUT_FAILED_QUEUE))) return []; // no server has run on this database yet
  const jobs = await boss.findJobs<{ milestone_id: string }>(PAYOUT_FAILED_QUEUE, { queued: true });
  return jobs.map((j) => ({ milestone_id: j.data.milestone_id, parked_at: j.createdOn.toISOString() }));
}

export async function main(argv: string[]): Promise<number> {
  try {
    const { command, args, options } = parse(argv);
    if (command === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (!command) throw new UsageError('missing <command>');
    const action = prepare(command, args, options);
    const { database, close } = await openServerDatabase();
    try {
      await action(database);
    } finally {
      await close();
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof Failure) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
