// GitHub's answers during sign-in, bounded, against the local fake GitHub: an answer that never
// ends is dropped at its cap, one that never comes is given up after GITHUB_TIMEOUT_MS. Either way
// the callback fails with the envelope, quickly, and nobody is signed in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CookieJar, SESSION_COOKIE, githubSignIn } from '../helpers/session.ts';
import { FLOOD_BYTES, startFakeGithub, type FakeGithub } from '../fakes/github.ts';
import { loadConfig } from '../../src/config.ts';

const TIMEOUT_MS = 500;
let fake: FakeGithub;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeGithub();
  server = await startTestServer({ ...fake.env, GITHUB_TIMEOUT_MS: String(TIMEOUT_MS) });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

/** Signs in while `endpoint` misbehaves; the callback's error and how long it took. */
async function failedSignIn(endpoint: 'token' | 'user', how: 'flood' | 'stall') {
  const jar = new CookieJar();
  fake.misbehaveNext(endpoint, how);
  const started = performance.now();
  const { response } = await githubSignIn(server, jar);
  const ms = performance.now() - started;
  expect(response.status).toBe(500);
  expect((await response.json()).error).toMatchObject({ code: 'INTERNAL', issues: [] });
  expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
  return ms;
}

describe.each(['token', 'user'] as const)("GitHub's %s answer", (endpoint) => {
  it('that never ends is dropped at its cap', async () => {
    const ms = await failedSignIn(endpoint, 'flood');
    expect(ms).toBeLessThan(TIMEOUT_MS); // refused, not timed out
    const flood = await fake.floods.at(-1)!;
    expect(flood.complete).toBe(false);
    expect(flood.written).toBeLessThan(FLOOD_BYTES / 8);
  });

  it('that never comes is given up after GITHUB_TIMEOUT_MS', async () => {
    const ms = await failedSignIn(endpoint, 'stall');
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1000);
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
