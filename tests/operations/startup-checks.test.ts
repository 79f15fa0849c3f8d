// What the server process (as `npm start` runs it) says, or refuses, at start about settings that
// are unsafe: the dev sign-in, a PUBLIC_URL beyond this machine with it, TRUST_PROXY=true. See the
// "Security notes for operators" in docs/guide/production.md. On a server Postgres when DATABASE_URL is set, else
// PGlite under a temporary DATA_DIR.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killRunningServers, spawnServer, waitUntilHealthy } from '../helpers/server-process.ts';
import { freshServerDatabase } from '../helpers/server.ts';

const PUBLIC = 'https://gigs.example.com';
const GITHUB = { GITHUB_CLIENT_ID: 'client-id', GITHUB_CLIENT_SECRET: 'client-secret' };
const DEV_SIGN_IN_ON = /^the dev sign-in is on/;
const DEV_SIGN_IN_REMOTE = /^DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE/;
const TRUST_ALL = /^TRUST_PROXY=true/;

let database: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const fresh = await freshServerDatabase(process.env.DATABASE_URL);
    database = { DATABASE_URL: fresh.url };
    cleanup = fresh.drop;
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-startup-'));
    database = { DATA_DIR: dataDir };
    cleanup = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
afterAll(async () => {
  killRunningServers();
  await cleanup?.();
});

/** Starts a server with `env`, stops it once healthy, and returns its warnings (pino level 40). */
async function warningsAtStart(env: Record<string, string>): Promise<string[]> {
  const server = await spawnServer({ ...database, ...env });
  await waitUntilHealthy(server);
  server.child.kill('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
  return server
    .logs()
    .filter((l) => l.level === 40)
    .map((l) => String(l.msg));
}

describe('at start', { timeout: 120_000 }, () => {
  it('warns whenever the dev sign-in is on, and not when GitHub signs people in', async () => {
    const warnings = await warningsAtStart({ TRUST_PROXY: '1' });
    expect(warnings).toEqual([expect.stringMatching(DEV_SIGN_IN_ON)]);
    expect(warnings[0]).toContain('/auth/dev');
    expect(await warningsAtStart({ ...GITHUB })).toEqual([]);
  });

  it('refuses to start with the dev sign-in on and PUBLIC_URL beyond this machine, unless DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true', async () => {
    const server = await spawnServer({ ...database, PUBLIC_URL: PUBLIC });
    const outcome = await Promise.race([server.exited, waitUntilHealthy(server).then(() => 'started')]);
    if (outcome === 'started') server.child.kill('SIGKILL');
    expect(outcome, server.output()).toEqual({ code: 1, signal: null });
    expect(server.output()).toContain(`PUBLIC_URL (${PUBLIC}) is not this machine`);
    expect(server.output()).toContain('DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true');

    expect(await warningsAtStart({ PUBLIC_URL: PUBLIC, DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: 'true' })).toEqual([
      expect.stringMatching(DEV_SIGN_IN_REMOTE),
    ]);
  });

  it('warns that TRUST_PROXY=true lets a client choose its own address, and not for a hop count', async () => {
    const warnings = await warningsAtStart({ ...GITHUB, PUBLIC_URL: PUBLIC, TRUST_PROXY: 'true' });
    expect(warnings).toEqual([expect.stringMatching(TRUST_ALL)]);
    expect(warnings[0]).toMatch(/X-Forwarded-For/);
    expect(warnings[0]).toMatch(/TRUST_PROXY=1/);
  });
});
