// External feeds are fetched with the webhooks' guard (docs/architecture.md §8): the feed's URL and
// every redirect hop are checked and connected to at checked addresses only, the operator's
// allowance of private addresses (SOURCES_ALLOW_PRIVATE_URLS) covers the feed's own origin only,
// and a failed answer is reported by its status, never by what it said.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { SourceConfig } from '../../src/sources/config.ts';
import { syncSource, type SyncDeps, type SyncLog } from '../../src/sources/sync.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixture, startFakeFeeds, type FakeFeeds } from '../fakes/feeds.ts';

const SECRET = 'INTERNAL-SECRET-7f3a9c';

let feeds: FakeFeeds;
/** Another origin on this machine, standing for what only the server can reach. */
let inside: FakeFeeds;
let server: TestServer;
const logs: { level: string; obj: object; msg: string }[] = [];
const log: SyncLog = {
  info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
  warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
  error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
};

const feed = (name: string, path: string): SourceConfig => ({
  name,
  kind: 'json_feed',
  url: `${feeds.url}${path}`,
  schedule: '0 0 1 1 *',
  enabled: true,
  defaultCurrency: 'USD',
  query: undefined,
  tokenEnv: undefined,
  maxPages: 1,
});

const sync = (source: SourceConfig, extra: Partial<SyncDeps> = {}) =>
  syncSource({ db: server.db, log, env: {}, allowPrivateUrls: true, limits: { timeoutMs: 3000, maxBytes: 1 << 20 }, ...extra }, source);

const redirect = (location: string, status = 302) => ({ status, body: '', headers: { location } });

beforeAll(async () => {
  feeds = await startFakeFeeds();
  inside = await startFakeFeeds();
  inside.serve('/secret', { body: SECRET, contentType: 'text/plain' });
  feeds.serve('/jobs.json', { body: fixture('jobs.feed.json'), contentType: 'application/feed+json' });
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
  await feeds?.close();
  await inside?.close();
});

describe('redirects', () => {
  it('on the feed own origin are followed', async () => {
    feeds.serve('/moved.json', redirect('/jobs.json', 301));
    const result = await sync(feed('moved', '/moved.json'));
    expect(result, result.error).toMatchObject({ ok: true, inserted: 3 });
  });

  it('off the feed origin to loopback, a name resolving to it, or link-local are refused without connecting', async () => {
    const port = new URL(inside.url).port;
    const cases: [string, string, RegExp][] = [
      ['/to-loopback', `${inside.url}/secret`, /127\.0\.0\.1 is a loopback address/],
      ['/to-localhost', `http://localhost:${port}/secret`, /host localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
      ['/to-metadata', 'http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
      ['/to-file', 'file:///etc/passwd', /must be an http\(s\) URL/],
    ];
    for (const [path, location, reason] of cases) {
      feeds.serve(path, redirect(location));
      const result = await sync(feed('hop', path));
      expect(result.ok).toBe(false);
      expect(result.error).toContain(`${feeds.url}${path}: redirect to ${location} refused`);
      expect(result.error).toMatch(reason);
    }
    expect(inside.requests).toEqual([]);
  });

  it('are followed a few times only', async () => {
    feeds.serve('/loop.json', redirect('/loop.json'));
    const before = feeds.requests.length;
    const result = await sync(feed('loop', '/loop.json'));
    expect(result.error).toMatch(/loop\.json: more than 5 redirects/);
    expect(feeds.requests.length - before).toBe(6);
  });
});

describe('private addresses', () => {
  it('are refused for the feed itself without SOURCES_ALLOW_PRIVATE_URLS, and nothing is fetched', async () => {
    const before = feeds.requests.length;
    const result = await sync(feed('jobs-local', '/jobs.json'), { allowPrivateUrls: false });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(feeds.requests.length).toBe(before);
  });

  it('SOURCES_ALLOW_PRIVATE_URLS is refused in production, like the webhooks flag', () => {
    expect(loadConfig({ NODE_ENV: 'test', SOURCES_ALLOW_PRIVATE_URLS: 'true' }).sourcesAllowPrivateUrls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).sourcesAllowPrivateUrls).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', SOURCES_ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /SOURCES_ALLOW_PRIVATE_URLS must not be true when NODE_ENV=production/,
    );
  });
});

describe('a failed answer', () => {
  it('is reported by its status only: its body is neither in the result nor in the logs', async () => {
    feeds.serve('/leaky.json', { status: 500, body: `<pre>${SECRET} at db.internal:5432</pre>`, contentType: 'text/html' });
    logs.length = 0;
    const result = await sync(feed('leaky', '/leaky.json'));
    expect(result).toMatchObject({ ok: false, error: `${feeds.url}/leaky.json: HTTP 500` });
    expect(logs.some((l) => l.level === 'error')).toBe(true);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });
});
