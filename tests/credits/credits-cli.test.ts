// The operator CLI's credits commands as an operator runs them (a separate process on the server's
// database): `credits show`, `credits grant <user> <amount> [--reason]`, `credits set-tier`; the
// user's key then sees the result over HTTP. Usage errors exit 2 before the database is opened; an
// unknown user exits 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startRuntime } from '../../src/runtime.ts';
import { allJobs } from '../../jobs/index.ts';
import { migratedServerDatabase } from '../helpers/server.ts';
import { pgliteDataDir } from '../helpers/server-process.ts';
import { type CliDatabase, runCli } from '../helpers/cli.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';

type DatabaseEnv = CliDatabase;
const cli = runCli;

const json = async (args: string[], database: DatabaseEnv) => {
  const res = await cli([...args, '--json'], database);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

/** The operator's session: a user made, credits granted and a tier set by the CLI, then read over HTTP. */
async function operatorSession(database: DatabaseEnv) {
  const user = await json(['create-user', 'Ada'], database);
  expect(await json(['credits', 'show', user.user_id], database)).toMatchObject({
    user_id: user.user_id,
    credits_balance: 20,
    subscription_tier: 'free',
    monthly_grant: 20,
  });
  const granted = await json(['credits', 'grant', user.user_id, '50', '--reason', 'launch promotion'], database);
  expect(granted).toEqual({
    user_id: user.user_id,
    credits_balance: 70,
    entry: expect.objectContaining({ amount: 50, reason: 'operator_grant', reference_id: null, note: 'launch promotion' }),
  });
  const again = await cli(['credits', 'grant', user.user_id, '1'], database);
  expect(again.stdout).toBe(`Granted 1 credit to user ${user.user_id}; balance 71.\n`);
  const tier = await cli(['credits', 'set-tier', user.user_id, 'pro'], database);
  expect(tier.code, tier.stderr).toBe(0);
  expect(tier.stdout).toContain('71 credits, pro tier (200 a month');

  const runtime = await startRuntime(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...database }), {
    jobDefinitions: allJobs,
    logger: false,
  });
  try {
    await runtime.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = runtime.app.server.address() as { port: number };
    const get = (p: string) =>
      fetch(`http://127.0.0.1:${port}${p}`, { headers: { authorization: `Bearer ${user.api_key}` } }).then((r) => r.json());
    expect(await get('/api/credits')).toMatchObject({ credits_balance: 71, subscription_tier: 'pro', monthly_grant: 200 });
    const ledger = await get('/api/credits/transactions');
    expect(ledger.data.map((e: { reason: string; amount: number }) => [e.reason, e.amount])).toEqual([
      ['operator_grant', 1],
      ['operator_grant', 50],
      ['monthly_grant', 20],
    ]);
    const feed = await get('/api/events?type=credits.granted');
    expect(feed.data).toHaveLength(3);
  } finally {
    await runtime.close();
  }
}

// A DATA_DIR of its own whatever the run: the embedded run only (tests/helpers/runs.ts).
describe.runIf(EMBEDDED_RUN)('credits CLI on PGlite under DATA_DIR', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await pgliteDataDir('gm-credits-cli-');
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('grants credits and sets tiers that the API then shows', async () => {
    await operatorSession({ DATA_DIR: dataDir });
  });

  it('exits 2 on usage errors without opening the database, and 1 for an unknown user', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-credits-cli-usage-'));
    const someone = '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b';
    try {
      const usageErrors = [
        ['credits'],
        ['credits', 'refund', someone],
        ['credits', 'show', 'not-a-uuid'],
        ['credits', 'grant', someone, '0'],
        ['credits', 'grant', someone, '1.5'],
        ['credits', 'grant', someone, '5', '--reason', '   '],
        ['credits', 'set-tier', someone, 'gold'],
      ];
      // At once: none of them opens the database.
      const results = await Promise.all(usageErrors.map((args) => cli(args, { DATA_DIR: empty })));
      for (const [i, res] of results.entries()) {
        expect(res.code, usageErrors[i]!.join(' ')).toBe(2);
        expect(res.stdout).toBe('');
        expect(res.stderr).toContain('Usage: npm run -s cli --');
      }
      expect(fs.readdirSync(empty)).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    for (const args of [
      ['credits', 'grant', someone, '5'],
      ['credits', 'set-tier', someone, 'team'],
    ]) {
      const res = await cli(args, { DATA_DIR: dataDir });
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toContain(`no user with id ${someone}`);
    }
  });
});

describe.runIf(process.env.DATABASE_URL)('credits CLI on a server Postgres (DATABASE_URL)', { timeout: 180_000 }, () => {
  let database: Awaited<ReturnType<typeof migratedServerDatabase>>;
  beforeAll(async () => {
    database = await migratedServerDatabase(process.env.DATABASE_URL!);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('grants credits and sets tiers that the API then shows', async () => {
    await operatorSession({ DATABASE_URL: database.url });
  });
});
