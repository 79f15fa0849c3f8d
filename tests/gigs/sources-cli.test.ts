// The operator's side of external sources: `sources list` and `sources sync [name]` as a separate
// process on the server's database, and a server that refuses to start on a broken sources file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../db/client.ts';
import { startRuntime } from '../../src/runtime.ts';
import { allJobs } from '../../jobs/index.ts';
import { processDatabase } from '../helpers/server-process.ts';
import { type CliDatabase, type CliResult, runCli } from '../helpers/cli.ts';
import { fixture, startFakeFeeds, type FakeFeeds } from '../fakes/feeds.ts';

let feeds: FakeFeeds;
let dir: string;
let database: CliDatabase;
let dropDatabase: (() => Promise<void>) | undefined;

function writeSources(name: string, doc: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}

/** The CLI on this file's database, reading `sourcesFile`. */
const cli = (args: string[], sourcesFile: string, more: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  runCli(args, database, {
    SOURCES_FILE: sourcesFile,
    SOURCES_ALLOW_PRIVATE_URLS: 'true', // the fake feeds are on this machine
    ...more,
  });

let good: string;
const SECRET = 'INTERNAL-SECRET-5e1d';

beforeAll(async () => {
  feeds = await startFakeFeeds();
  feeds.serve('/jobs.json', { body: fixture('jobs.feed.json'), contentType: 'application/feed+json' });
  feeds.serve('/broken.rss', { body: '<rss><channel>', contentType: 'application/rss+xml' });
  feeds.serve('/leaky.json', { status: 500, body: `stack: ${SECRET} at db.internal:5432`, contentType: 'text/plain' });
  feeds.serve('/hop.json', { status: 302, body: '', headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-sources-cli-'));
  const fresh = await processDatabase();
  database = fresh.env;
  dropDatabase = fresh.drop;
  good = writeSources('sources.json', {
    sources: [
      { name: 'jobs', kind: 'json_feed', url: `${feeds.url}/jobs.json`, schedule: '0 0 1 1 *' },
      { name: 'broken', kind: 'rss', url: `${feeds.url}/broken.rss` },
      { name: 'off', kind: 'rss', url: `${feeds.url}/broken.rss`, enabled: false },
      { name: 'leaky', kind: 'json_feed', url: `${feeds.url}/leaky.json`, enabled: false },
      { name: 'hop', kind: 'json_feed', url: `${feeds.url}/hop.json`, enabled: false },
    ],
  });
});

afterAll(async () => {
  await feeds?.close();
  await dropDatabase?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Each CLI run is a process of its own: allow for slow, busy machines.
describe('sources on the CLI', { timeout: 180_000 }, () => {
  it('sync <name> syncs one source now and prints the counts', async () => {
    const res = await cli(['sources', 'sync', 'jobs', '--json'], good);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(res.stdout)).toEqual([
      { source: 'jobs', ok: true, error: null, fetched: 5, skipped: 2, inserted: 3, updated: 0, reopened: 0, unchanged: 0, closed: 0 },
    ]);
  });

  it('list shows every configured source with its gigs', async () => {
    const res = await cli(['sources', 'list', '--json'], good);
    expect(res.code, res.stderr).toBe(0);
    const listed = JSON.parse(res.stdout);
    expect(listed.map((s: { name: string }) => s.name)).toEqual(['jobs', 'broken', 'off', 'leaky', 'hop']);
    expect(listed[0]).toMatchObject({
      kind: 'json_feed',
      enabled: true,
      schedule: '0 0 1 1 *',
      open_gigs: 3,
      closed_gigs: 0,
      default_currency: 'USD',
    });
    expect(listed[2]).toMatchObject({ enabled: false, schedule: '*/30 * * * *', open_gigs: 0 });

    const text = await cli(['sources', 'list'], good);
    expect(text.stdout).toContain(`jobs  json_feed  enabled  "0 0 1 1 *"  ${feeds.url}/jobs.json  (3 open, 0 closed)`);
  });

  it('sync without a name syncs every enabled source; one failing exits 1 after the others ran', async () => {
    const res = await cli(['sources', 'sync'], good);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('jobs: 5 items (2 skipped); 0 new, 0 updated (0 reopened), 3 unchanged, 0 closed');
    expect(res.stdout).toMatch(/broken: FAILED, nothing changed: .*not well-formed XML/);
    expect(res.stdout).not.toContain('off:');
    expect(res.stderr).toContain('1 of 2 sources failed');
  });

  it('sync says a failed answer by its status, never its body, and refuses a redirect into the network', async () => {
    const leaky = await cli(['sources', 'sync', 'leaky'], good, { LOG_LEVEL: 'info' });
    expect(leaky.code).toBe(1);
    expect(leaky.stdout).toContain(`leaky: FAILED, nothing changed: ${feeds.url}/leaky.json: HTTP 500\n`);
    expect(leaky.stderr).toContain('source sync failed');
    expect(leaky.stdout + leaky.stderr).not.toContain(SECRET);

    const hop = await cli(['sources', 'sync', 'hop', '--json'], good);
    expect(JSON.parse(hop.stdout)[0].error).toMatch(/redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/ refused: .*link-local/);
  });

  it('explains mistakes: an unknown source, a bad subcommand, a broken file', async () => {
    const unknown = await cli(['sources', 'sync', 'nope'], good);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no source named "nope" in ${good}`);

    const usage = await cli(['sources', 'frob'], good);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('sources needs "list" or "sync [name]"');

    const broken = writeSources('broken.json', { sources: [{ name: 'x', kind: 'rss', url: 'https://x.example/rss', schedule: 'hourly' }] });
    const bad = await cli(['sources', 'list'], broken);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${broken}: source "x": "schedule" must be a cron expression`);
  });
});

describe('the schedules when the sources file changes', () => {
  it('follow it at the next start: new keys added, removed or disabled sources unscheduled', async () => {
    const schedulesWith = async (file: string) => {
      const runtime = await startRuntime(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...database, SOURCES_FILE: file }), {
        jobDefinitions: allJobs,
        logger: false,
      });
      try {
        return (await runtime.jobs.boss.getSchedules('source-sync')).map((s) => [s.key, s.cron]).sort();
      } finally {
        await runtime.close();
      }
    };
    expect(await schedulesWith(good)).toEqual([
      ['broken', '*/30 * * * *'],
      ['jobs', '0 0 1 1 *'],
    ]);
    const changed = writeSources('changed.json', {
      sources: [
        { name: 'jobs', kind: 'json_feed', url: `${feeds.url}/jobs.json`, schedule: '0 12 1 1 *' },
        { name: 'broken', kind: 'rss', url: `${feeds.url}/broken.rss`, enabled: false },
        { name: 'fresh', kind: 'atom', url: `${feeds.url}/x.atom`, schedule: '0 0 2 1 *' },
      ],
    });
    expect(await schedulesWith(changed)).toEqual([
      ['fresh', '0 0 2 1 *'],
      ['jobs', '0 12 1 1 *'],
    ]);
  }, 120_000); // two runtimes started and stopped in turn
});

describe('the server with a broken sources file', () => {
  it('refuses to start and says what is wrong', async () => {
    const file = writeSources('invalid.json', '{"sources": [{"name": "native", "kind": "rss", "url": "https://x.example"}]}');
    const db = await openDatabase({});
    try {
      await expect(
        startRuntime(loadConfig({ NODE_ENV: 'test', SOURCES_FILE: file }), { jobDefinitions: allJobs, logger: false, database: db }),
      ).rejects.toThrow(`${file}: sources[0]: "name" must not be "native"`);
    } finally {
      await db.close();
    }
    expect(() => loadConfig({ SOURCES_FILE: path.join(dir, 'missing.json') })).toThrow(
      /SOURCES_FILE points to ".*missing.json", which does not exist/,
    );
  });
});
