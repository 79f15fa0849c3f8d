// The operator CLI as an operator runs it: a separate process on the server's database (PGlite
// under DATA_DIR, or DATABASE_URL); its key then works on a server started on that database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { allJobs } from '../../jobs/index.ts';
import { LOCK_FILE } from '../../src/data-lock.ts';
import pino from 'pino';
import { migrate, openDatabase } from '../../db/client.ts';
import { startJobs, type JobSystem } from '../../src/job-system/boss.ts';
import { PAYOUT_FAILED_QUEUE, PAYOUT_QUEUE } from '../../src/job-system/queues.ts';
import { newId } from '../../src/ids.ts';
import { freshServerDatabase } from '../helpers/server.ts';
import { runCli as cli } from '../helpers/cli.ts';
import { pgliteDataDir } from '../helpers/server-process.ts';
import { issueApiKey, MAX_ACTIVE_KEYS_PER_USER } from '../../src/services/api-keys.ts';
import { userActor } from '../../src/actor.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';

async function startServer(env: Record<string, string>): Promise<{ runtime: Runtime; url: string }> {
  const runtime = await startRuntime(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env }), {
    jobDefinitions: allJobs,
    logger: false,
  });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const address = runtime.app.server.address();
  return { runtime, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/** pg-boss on the PGlite database under `dataDir`, for setting up and checking its queues. */
async function withBoss(dataDir: string, use: (boss: JobSystem['boss']) => Promise<void>): Promise<void> {
  const database = await openDatabase({ dataDir });
  try {
    await migrate(database);
    const jobs = await startJobs(database, pino({ level: 'silent' }), []);
    try {
      await use(jobs.boss);
    } finally {
      await jobs.stop();
    }
  } finally {
    await database.close();
  }
}

async function verify(url: string, key: string, header: 'bearer' | 'x-api-key') {
  const res = await fetch(`${url}/api/keys/verify`, {
    headers: header === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
  });
  return { status: res.status, body: await res.json() };
}

// Each CLI run is a fresh process opening PGlite: allow for slow, busy machines. A DATA_DIR of its
// own whatever the run: the embedded run only (tests/helpers/runs.ts).
describe.runIf(EMBEDDED_RUN)('CLI on PGlite under DATA_DIR', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-cli-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const lockFile = () => path.join(dataDir, LOCK_FILE);

  it('creates users and keys that a server on the same DATA_DIR accepts, under both headers', async () => {
    const created = await cli(['create-user', 'Ada Lovelace', '--json'], { DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(Object.keys(user)).toEqual(['user_id', 'api_key']);
    expect(user.api_key).toMatch(/^gm_live_[0-9A-Za-z]{40}$/);
    expect(created.stdout.trim().split('\n')).toHaveLength(1); // only the result on stdout

    const agentKey = await cli(['create-key', user.user_id, '--name', 'research bot', '--agent', 'agent-1', '--json'], {
      DATA_DIR: dataDir,
    });
    expect(agentKey.code, agentKey.stderr).toBe(0);
    const agent = JSON.parse(agentKey.stdout);
    expect(agent).toMatchObject({
      user_id: user.user_id,
      name: 'research bot',
      hosted_agent_id: 'agent-1',
      api_key: expect.stringMatching(/^gm_live_/),
    });

    const doomed = JSON.parse((await cli(['create-key', user.user_id, '--json'], { DATA_DIR: dataDir })).stdout);
    const revoked = await cli(['revoke-key', user.user_id, doomed.api_key_id], { DATA_DIR: dataDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('Revoked');

    const listed = await cli(['list-users', '--json'], { DATA_DIR: dataDir });
    expect(JSON.parse(listed.stdout)).toEqual([
      { user_id: user.user_id, display_name: 'Ada Lovelace', github_login: null, created_at: expect.any(String) },
    ]);
    expect(fs.existsSync(lockFile())).toBe(false); // the CLI released its lock

    const { runtime, url } = await startServer({ DATA_DIR: dataDir });
    try {
      expect(fs.readFileSync(lockFile(), 'utf8').trim()).toBe(String(process.pid));
      for (const header of ['bearer', 'x-api-key'] as const) {
        expect(await verify(url, user.api_key, header)).toEqual({
          status: 200,
          body: { user_id: user.user_id, hosted_agent_id: null, api_key_id: expect.any(String) },
        });
        expect((await verify(url, agent.api_key, header)).body).toEqual({
          user_id: user.user_id,
          hosted_agent_id: 'agent-1',
          api_key_id: agent.api_key_id,
        });
        expect((await verify(url, doomed.api_key, header)).status).toBe(401);
      }

      // While the server holds the database, the CLI refuses and says what to do instead.
      const refused = await cli(['list-users'], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`pid ${process.pid}`);
      expect(refused.stderr).toContain('stop the server first');
      expect(refused.stderr).toContain('/auth/dev');
      expect(refused.stderr).toContain('DATABASE_URL');
      // So does a second server.
      await expect(startServer({ DATA_DIR: dataDir })).rejects.toThrow(/in use by another gigmarket process/);
    } finally {
      await runtime.close();
    }
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('takes over a stale lock left by a process that died', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    fs.writeFileSync(lockFile(), `${dead.pid}\n`);
    const res = await cli(['list-users', '--json'], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveLength(1);
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  it('prints friendly text without --json', async () => {
    const res = await cli(['create-user', 'Grace', 'Hopper'], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/Created user "Grace Hopper" \(id [0-9a-f-]{36}\)/);
    expect(res.stdout).toMatch(/gm_live_[0-9A-Za-z]{40}/);
  });

  it('exits 2 with the usage on usage errors, without touching the database', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-cli-usage-'));
    try {
      const usageErrors = [
        [],
        ['frobnicate'],
        ['create-user'],
        ['create-user', 'x', '--bogus'],
        ['create-key', 'not-a-uuid'],
        ['create-key', '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b', '--agent', 'bad agent'],
        ['revoke-key', '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b'],
        ['payouts'],
        ['payouts', 'failed', 'x'],
        ['payouts', 'redrive', 'not-a-uuid'],
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
    const help = await cli(['help'], { DATA_DIR: dataDir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create-user <display name>');
  });

  it('lists the payouts that failed on every retry and sends them again', async () => {
    const parked = await pgliteDataDir('gm-cli-payouts-');
    const milestoneId = newId();
    try {
      const none = await cli(['payouts', 'failed'], { DATA_DIR: parked });
      expect(none.code, none.stderr).toBe(0);
      expect(none.stdout).toBe('no failed payout is waiting\n');
      // As a server leaves it: the payout's job parked in the dead letter queue after its last retry.
      await withBoss(parked, async (boss) => {
        await boss.createQueue(PAYOUT_FAILED_QUEUE);
        await boss.createQueue(PAYOUT_QUEUE, { deadLetter: PAYOUT_FAILED_QUEUE });
        await boss.send(PAYOUT_FAILED_QUEUE, { milestone_id: milestoneId });
      });

      const listed = await cli(['payouts', 'failed', '--json'], { DATA_DIR: parked });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([{ milestone_id: milestoneId, parked_at: expect.any(String) }]);
      expect((await cli(['payouts', 'failed'], { DATA_DIR: parked })).stdout).toContain(`milestone ${milestoneId}: failed on every retry`);

      const other = await cli(['payouts', 'redrive', newId(), '--json'], { DATA_DIR: parked });
      expect(JSON.parse(other.stdout)).toEqual({ redriven: 0 });
      const redriven = await cli(['payouts', 'redrive', milestoneId], { DATA_DIR: parked });
      expect(redriven.code, redriven.stderr).toBe(0);
      expect(redriven.stdout).toBe('sent 1 payout again\n');
      await withBoss(parked, async (boss) => {
        expect(await boss.findJobs(PAYOUT_FAILED_QUEUE, { queued: true })).toEqual([]);
        expect((await boss.findJobs(PAYOUT_QUEUE, { queued: true })).map((j) => j.data)).toEqual([{ milestone_id: milestoneId }]);
      });
    } finally {
      fs.rmSync(parked, { recursive: true, force: true });
    }
  });

  it('exits 1 for a user or key that does not exist', async () => {
    const noUser = await cli(['create-key', '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b'], { DATA_DIR: dataDir });
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain('no user with id');
    const user = JSON.parse((await cli(['create-user', 'Key Less', '--json'], { DATA_DIR: dataDir })).stdout);
    const noKey = await cli(['revoke-key', user.user_id, '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b'], { DATA_DIR: dataDir });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('has no key');
  });

  it('exits 1 for a user at the cap of active keys, saying so', async () => {
    const user = JSON.parse((await cli(['create-user', 'Key Hoarder', '--json'], { DATA_DIR: dataDir })).stdout);
    const database = await openDatabase({ dataDir });
    try {
      for (let i = 1; i < MAX_ACTIVE_KEYS_PER_USER; i++) await issueApiKey(database, userActor(user.user_id), { name: `agent ${i}` });
    } finally {
      await database.close();
    }
    const refused = await cli(['create-key', user.user_id], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`\nerror: you have ${MAX_ACTIVE_KEYS_PER_USER} active API keys, the most allowed; revoke one first\n`);
    expect(refused.stderr, 'a message, not a stack trace').not.toMatch(/\n\s+at /);
  });
});

describe.runIf(process.env.DATABASE_URL)('CLI on a server Postgres (DATABASE_URL)', { timeout: 120_000 }, () => {
  let database: Awaited<ReturnType<typeof freshServerDatabase>>;
  beforeAll(async () => {
    database = await freshServerDatabase(process.env.DATABASE_URL!);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('creates a user whose key works on a server using the same database, even while it runs', async () => {
    const created = await cli(['create-user', 'Pg User', '--json'], { DATABASE_URL: database.url });
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    const { runtime, url } = await startServer({ DATABASE_URL: database.url });
    try {
      for (const header of ['bearer', 'x-api-key'] as const) {
        expect(await verify(url, user.api_key, header)).toEqual({
          status: 200,
          body: { user_id: user.user_id, hosted_agent_id: null, api_key_id: expect.any(String) },
        });
      }
      // No lock on a server Postgres: the CLI works next to the running server.
      const key = await cli(['create-key', user.user_id, '--agent', 'pg-agent', '--json'], { DATABASE_URL: database.url });
      expect(key.code, key.stderr).toBe(0);
      expect((await verify(url, JSON.parse(key.stdout).api_key, 'x-api-key')).body.hosted_agent_id).toBe('pg-agent');
    } finally {
      await runtime.close();
    }
  });
  it('rotates the key that signs approval receipts: the server publishes the new one first and keeps the old', async () => {
    const rotations = [];
    for (let i = 0; i < 2; i++) {
      const rotated = await cli(['rotate-receipt-key', '--json'], { DATABASE_URL: database.url });
      expect(rotated.code, rotated.stderr).toBe(0);
      rotations.push(JSON.parse(rotated.stdout).kid as string);
    }
    expect(new Set(rotations).size).toBe(2);
    const { runtime, url } = await startServer({ DATABASE_URL: database.url });
    try {
      const set = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; crv: string }[] };
      expect(set.keys.map((k) => k.kid)).toEqual([rotations[1], rotations[0]]);
      expect(set.keys.every((k) => k.crv === 'Ed25519')).toBe(true);
    } finally {
      await runtime.close();
    }
    expect((await cli(['rotate-receipt-key', 'extra'], { DATABASE_URL: database.url })).code).toBe(2);
  });
});
