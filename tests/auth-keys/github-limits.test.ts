// GitHub's answers during sign-in, bounded, against the local fake GitHub: an answer that never
// ends is dropped at its cap, one that never comes is given up after GITHUB_TIMEOUT_MS. Either way
// the callback fails with the envelope, and nobody is signed in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CookieJar, SESSION_COOKIE, githubSignIn } from '../helpers/session.ts';
import { FLOOD_BYTES, startFakeGithub, type FakeGithub } from '../fakes/github.ts';
import { loadConfig } from '../../src/config.ts';

const TIMEOUT_MS = 500;
let fake: FakeGithub;
/** Gives up on GitHub after TIMEOUT_MS. */
let server: TestServer;
/** Waits for GitHub far longer than a test runs: whatever ends its sign-in is not the time limit. */
let patient: TestServer;

beforeAll(async () => {
  fake = await startFakeGithub();
  [server, patient] = await Promise.all([
    startTestServer({ ...fake.env, GITHUB_TIMEOUT_MS: String(TIMEOUT_MS) }),
    startTestServer({ ...fake.env, GITHUB_TIMEOUT_MS: '600000' }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), patient?.close()]);
  await fake?.close();
});

/** Signs in while `endpoint` misbehaves; the callback's error and how long it took. */
async function failedSignIn(endpoint: 'token' | 'user', how: 'flood' | 'stall', on = server) {
  const jar = new CookieJar();
  fake.misbehaveNext(endpoint, how);
  const started = performance.now();
  const { response } = await githubSignIn(on, jar);
  const ms = performance.now() - started;
  expect(response.status).toBe(500);
  expect((await response.json()).error).toMatchObject({ code: 'INTERNAL', issues: [] });
  expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
  return ms;
}

describe.each(['token', 'user'] as const)("GitHub's %s answer", (endpoint) => {
  it('that never ends is dropped at its cap', async () => {
    await failedSignIn(endpoint, 'flood', patient); // a server that would wait ten minutes: refused, not timed out
    const flood = await fake.floods.at(-1)!;
    expect(flood.complete).toBe(false);
    expect(flood.written).toBeLessThan(FLOOD_BYTES / 8);
  });

  it('that never comes is given up after GITHUB_TIMEOUT_MS', async () => {
    // Answered at all (the fake never answers): given up; and not before the limit.
    expect(await failedSignIn(endpoint, 'stall')).toBeGreaterThanOrEqual(TIMEOUT_MS);
  });
});

it('a sign-in works again afterwards', async () => {
  const { response } = await githubSignIn(server, new CookieJar());
  expect(response.status).toBe(302);
});

it('GITHUB_TIMEOUT_MS is 10 s unless set, and positive', () => {
  expect(loadConfig({ NODE_ENV: 'test', ...fake.env }).github!.timeoutMs).toBe(10_000);
  expect(() => loadConfig({ NODE_ENV: 'test', ...fake.env, GITHUB_TIMEOUT_MS: '0' })).toThrow(/GITHUB_TIMEOUT_MS must be at least 1/);
});
