// External gig sources end to end: fixture feeds served over local HTTP, synced into the gigs table
// of a real server (PGlite, or Postgres with DATABASE_URL), through syncSource and through the
// pg-boss job; read back from the database and through GET /api/gigs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixture, startFakeFeeds, type FakeFeeds } from '../fakes/feeds.ts';
import { loadSources, type SourceConfig } from '../../src/sources/config.ts';
import { syncSource, type SyncDeps, type SyncLog } from '../../src/sources/sync.ts';
import { externalGigsOf } from '../../db/repositories/external-gigs.ts';
import { SOURCE_SYNC_QUEUE } from '../../src/job-system/queues.ts';

const NEVER = '0 0 1 1 *'; // schedules that do not fire while the tests run
const TOKEN = 'ghp_testtoken0123456789';

let feeds: FakeFeeds;
let server: TestServer;
let dir: string;
let sources: Map<string, SourceConfig>;
const logs: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
const log: SyncLog = {
  info: (obj, msg) => logs.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  warn: (obj, msg) => logs.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
  error: (obj, msg) => logs.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
};

const jsonFeed = (doc: object) => ({ body: JSON.stringify(doc), contentType: 'application/feed+json' });
const jobsFeed = () => JSON.parse(fixture('jobs.feed.json'));
const githubIssues = () => JSON.parse(fixture('github-search.json')).items as Record<string, unknown>[];

function source(name: string): SourceConfig {
  const s = sources.get(name);
  if (!s) throw new Error(`no source ${name}`);
  return s;
}

// The fake feeds are on this machine: allowed as the server allows them with SOURCES_ALLOW_PRIVATE_URLS.
const sync = (name: string | SourceConfig, extra: Partial<Pick<SyncDeps, 'env' | 'limits' | 'afterWrite'>> = {}) =>
  syncSource({ db: server.db, log, env: {}, allowPrivateUrls: true, ...extra }, typeof name === 'string' ? source(name) : name);

async function rows(name: string) {
  return new Map((await externalGigsOf(server.db, name)).map((r) => [r.externalId!, r]));
}

beforeAll(async () => {
  feeds = await startFakeFeeds();
  feeds.serve('/jobs.json', jsonFeed(jobsFeed()));
  feeds.serve('/gigs.rss', { body: fixture('gigs.rss.xml'), contentType: 'application/rss+xml; charset=utf-8' });
  feeds.serve('/gigs.atom', { body: fixture('gigs.atom.xml'), contentType: 'application/atom+xml' });
  feeds.serve('/job.atom', { body: fixture('gigs.atom.xml'), contentType: 'application/atom+xml' });
  feeds.serve('/twice.json', jsonFeed(jobsFeed()));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-sources-'));
  const file = path.join(dir, 'sources.json');
  const feed = (name: string, kind: string, p: string, more: object = {}) => ({
    name,
    kind,
    url: `${feeds.url}${p}`,
    schedule: NEVER,
    ...more,
  });
  fs.writeFileSync(
    file,
    JSON.stringify({
      sources: [
        feed('jobs', 'json_feed', '/jobs.json', { schedule: '7 3 1 1 *' }),
        feed('board', 'rss', '/gigs.rss', { default_currency: 'USD' }),
        feed('bounties', 'atom', '/gigs.atom'),
        feed('by-job', 'atom', '/job.atom'),
        { name: 'gh', kind: 'github_issues', url: feeds.url, token_env: 'GM_TEST_GH_TOKEN', schedule: '5 4 1 1 *' },
        feed('broken', 'rss', '/broken.rss'),
        feed('down', 'json_feed', '/down.json'),
        feed('slow', 'json_feed', '/slow.json'),
        feed('huge', 'json_feed', '/huge.json'),
        feed('off', 'rss', '/gigs.rss', { enabled: false }),
        feed('twice', 'json_feed', '/twice.json'),
      ],
    }),
  );
  sources = new Map(loadSources(file).map((s) => [s.name, s]));
  server = await startTestServer({ SOURCES_FILE: file, SOURCES_ALLOW_PRIVATE_URLS: 'true' });
});

afterAll(async () => {
  await server?.close();
  await feeds?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('each format lands with its fields', () => {
  it('JSON Feed 1.1', async () => {
    const result = await sync('jobs');
    expect(result).toMatchObject({ ok: true, fetched: 5, skipped: 2, inserted: 3, updated: 0, closed: 0 });
    const gigs = await rows('jobs');
    expect([...gigs.keys()].sort()).toEqual(['gig-102', 'gig-103', 'https://jobs.example.com/gigs/101']);
    const rust = gigs.get('https://jobs.example.com/gigs/101')!;
    expect(rust).toMatchObject({
      source: 'jobs',
      clientUserId: null,
      status: 'open',
      title: 'Senior Rust engineer for a WASM plugin system',
      tags: ['rust', 'wasm', 'plugins'],
      compensationType: 'hourly',
      compensationMinCents: 8000,
      compensationMaxCents: 8000,
      currency: 'USD',
      url: 'https://jobs.example.com/gigs/101',
      rateCents: null,
    });
    expect(rust.description).toBe(
      'We are building a plugin host in Rust & WebAssembly.\n\n- Design the ABI\n- Write the loader\nPay: $80/hr, about 20 hours a week.',
    );
    expect(rust.postedAt.toISOString()).toBe('2025-05-01T10:00:00.000Z');
    expect(gigs.get('gig-102')).toMatchObject({
      url: `${feeds.url}/gigs/102`,
      compensationType: 'fixed',
      compensationMinCents: 200000,
      currency: 'EUR',
      tags: ['design', 'branding'],
    });
    expect(gigs.get('gig-102')!.postedAt.toISOString()).toBe('2025-05-02T10:15:00.000Z');
    // external_url when there is no url; a tag over 40 characters is dropped.
    expect(gigs.get('gig-103')).toMatchObject({
      url: 'https://partner.example.org/listing/9',
      compensationType: 'fixed',
      compensationMinCents: 500000,
      currency: 'USD',
      tags: ['python', 'airflow', 'dagster'],
    });
    expect(logs.filter((l) => l.msg === 'external item skipped' && l.obj.source === 'jobs').map((l) => l.obj.reason)).toEqual([
      'no title',
      'no url',
    ]);
    expect(feeds.requests.find((r) => r.path === '/jobs.json')!.headers.accept).toContain('application/feed+json');
  });

  it('RSS 2.0', async () => {
    expect(await sync('board')).toMatchObject({ ok: true, fetched: 4, skipped: 1, inserted: 3 });
    const gigs = await rows('board');
    expect(gigs.get('board-5001')).toMatchObject({
      title: 'React Native developer for a fitness app',
      url: 'https://board.example.org/gigs/rn-fitness',
      description: 'Build the workout tracker screens.\nRate: $60-80/h, 3 months.',
      tags: ['react native', 'typescript'],
      compensationType: 'hourly',
      compensationMinCents: 6000,
      compensationMaxCents: 8000,
      currency: 'USD',
    });
    expect(gigs.get('board-5001')!.postedAt.toISOString()).toBe('2025-05-06T14:30:00.000Z');
    // content:encoded over description, dc:date when there is no pubDate, entities decoded.
    const paper = gigs.get('https://board.example.org/gigs/whitepaper')!;
    expect(paper).toMatchObject({
      title: 'Write & edit a technical whitepaper',
      compensationType: 'fixed',
      compensationMinCents: 50000,
      currency: 'GBP',
      tags: ['writing'],
    });
    expect(paper.description).toBe('Scope\n12 pages on zero-knowledge proofs. £500 for the draft and two rounds of edits.');
    expect(paper.postedAt.toISOString()).toBe('2025-05-05T08:00:00.000Z');
    // No guid: the link is the id. No amount: unknown, in the source's currency.
    expect(gigs.get('https://board.example.org/gigs/k8s-cost')).toMatchObject({
      compensationType: 'unknown',
      compensationMinCents: null,
      currency: 'USD',
      tags: [],
    });
  });

  it('Atom 1.0', async () => {
    expect(await sync('bounties')).toMatchObject({ ok: true, fetched: 3, skipped: 1, inserted: 2 });
    const gigs = await rows('bounties');
    const flaky = gigs.get('tag:freelance.example.net,2025:bounty-7781')!;
    expect(flaky).toMatchObject({
      title: 'Fix flaky CI tests in a Go monorepo',
      url: 'https://freelance.example.net/b/7781',
      tags: ['go', 'ci'],
      description: 'Three tests fail one run in ten. Find out why and fix them.\n$250 bounty, paid on merge.',
      compensationType: 'bounty',
      compensationMinCents: 25000,
      compensationMaxCents: 25000,
      currency: 'USD',
    });
    expect(flaky.postedAt.toISOString()).toBe('2025-05-06T11:00:00.000Z'); // published, not updated
    const audit = gigs.get('tag:freelance.example.net,2025:gig-22')!;
    expect(audit).toMatchObject({
      url: 'https://freelance.example.net/g/audit-22',
      tags: ['accessibility', 'wcag'],
      compensationType: 'fixed',
      compensationMinCents: 120000,
      currency: 'USD',
    });
    expect(audit.description).toContain('Audit five pages against WCAG 2.2 AA.');
    expect(audit.postedAt.toISOString()).toBe('2025-05-04T16:45:00.000Z');
  });

  it('GitHub issue search, following Link rel="next" with the token and API headers', async () => {
    feeds.github.issues = githubIssues();
    feeds.github.pageSize = 2;
    feeds.github.requireToken = TOKEN;
    const before = feeds.requests.length;
    const result = await sync('gh', { env: { GM_TEST_GH_TOKEN: TOKEN } });
    expect(result).toMatchObject({ ok: true, fetched: 4, skipped: 0, inserted: 4 }); // the pull request is not a gig
    const calls = feeds.requests.slice(before).filter((r) => r.path === '/search/issues');
    expect(calls.map((c) => c.query.get('page'))).toEqual([null, '2', '3']);
    for (const c of calls) {
      expect(c.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(c.headers.accept).toBe('application/vnd.github+json');
      expect(c.headers['x-github-api-version']).toBe('2022-11-28');
      expect(c.headers['user-agent']).toBeTruthy();
      expect(c.query.get('q')).toBe('label:bounty state:open');
    }
    const gigs = await rows('gh');
    expect([...gigs.keys()].sort()).toEqual(['2981234501', '2981234502', '2981234503', '2981234504']);
    const otel = gigs.get('2981234501')!;
    expect(otel).toMatchObject({
      title: 'Add OpenTelemetry tracing to the HTTP layer',
      url: 'https://github.com/acme/widgets/issues/412',
      tags: ['💎 bounty', 'enhancement', 'rust'],
      compensationType: 'bounty',
      compensationMinCents: 25000,
      currency: 'USD',
    });
    expect(otel.description).toContain('`Vec<Span>`'); // markdown kept as text
    expect(otel.description).not.toContain('Please keep this template');
    expect(otel.postedAt.toISOString()).toBe('2025-05-06T10:00:00.000Z');
    expect(gigs.get('2981234502')).toMatchObject({ compensationType: 'bounty', compensationMinCents: 150000 });
    expect(gigs.get('2981234503')).toMatchObject({ compensationType: 'bounty', compensationMinCents: 300000 }); // "USD 3k" on a bounty board
    expect(gigs.get('2981234504')).toMatchObject({ compensationType: 'unknown', compensationMinCents: null });
  });

  it('GitHub without the token it needs fails, and changes nothing', async () => {
    const result = await sync('gh', { env: {} });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/: HTTP 401$/); // the status only: an error answer's body is never quoted
    expect(result.error).not.toContain(TOKEN);
    expect([...(await rows('gh')).values()].every((g) => g.status === 'open')).toBe(true);
    expect(logs.some((l) => l.level === 'warn' && l.obj.source === 'gh' && /GM_TEST_GH_TOKEN is not set/.test(l.msg))).toBe(true);
  });

  it('GitHub listings that may be partial close nothing: a page limit, incomplete_results', async () => {
    feeds.github.issues = githubIssues().slice(1); // issue 412 is gone...
    feeds.github.pageSize = 1;
    const limited = await sync({ ...source('gh'), maxPages: 2 }, { env: { GM_TEST_GH_TOKEN: TOKEN } });
    expect(limited).toMatchObject({ ok: true, fetched: 2, closed: 0 }); // ...but pages 3 and 4 went unread
    expect(logs.some((l) => l.obj.source === 'gh' && /max_pages \(2\)/.test(l.msg))).toBe(true);

    feeds.github.pageSize = 100;
    feeds.github.incompleteResults = true;
    expect(await sync('gh', { env: { GM_TEST_GH_TOKEN: TOKEN } })).toMatchObject({ ok: true, closed: 0 });
    expect((await rows('gh')).get('2981234501')!.status).toBe('open');

    feeds.github.incompleteResults = false;
    expect(await sync('gh', { env: { GM_TEST_GH_TOKEN: TOKEN } })).toMatchObject({ ok: true, closed: 1 });
    expect((await rows('gh')).get('2981234501')!.status).toBe('closed');
  });
});

describe('re-syncs', () => {
  it('are idempotent: no duplicates, untouched rows keep their updated_at', async () => {
    const before = await rows('jobs');
    expect(await sync('jobs')).toMatchObject({ ok: true, inserted: 0, updated: 0, unchanged: 3, closed: 0 });
    const after = await rows('jobs');
    expect(after.size).toBe(3);
    for (const [id, row] of after) {
      expect(row.id).toBe(before.get(id)!.id);
      expect(row.updatedAt.getTime()).toBe(before.get(id)!.updatedAt.getTime());
    }
  });

  it('update the fields that changed, in place', async () => {
    const doc = jobsFeed();
    doc.items[0].title = 'Staff Rust engineer for a WASM plugin system';
    doc.items[0].tags = ['rust', 'wasmtime'];
    doc.items[0].content_html = '<p>Now $95/hour.</p>';
    feeds.serve('/jobs.json', jsonFeed(doc));
    const before = (await rows('jobs')).get('https://jobs.example.com/gigs/101')!;
    const changed: string[][] = [];
    const afterWrite = async (_tx: unknown, ids: string[]) => {
      changed.push(ids);
    };
    expect(await sync('jobs', { afterWrite })).toMatchObject({ ok: true, inserted: 0, updated: 1, unchanged: 2 });
    expect(changed).toEqual([[before.id]]); // only what changed, for derived data such as embeddings
    const after = (await rows('jobs')).get('https://jobs.example.com/gigs/101')!;
    expect(after).toMatchObject({
      id: before.id,
      title: 'Staff Rust engineer for a WASM plugin system',
      tags: ['rust', 'wasmtime'],
      compensationMinCents: 9500,
      description: 'Now $95/hour.',
    });
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
  });

  it('close items gone from the feed (never delete them) and reopen those that come back', async () => {
    const doc = jobsFeed();
    const gone = doc.items.splice(1, 1); // gig-102
    feeds.serve('/jobs.json', jsonFeed(doc));
    const open = (await rows('jobs')).get('gig-102')!;
    expect(await sync('jobs')).toMatchObject({ ok: true, closed: 1, reopened: 0 });
    const closed = (await rows('jobs')).get('gig-102')!;
    expect(closed).toMatchObject({ id: open.id, status: 'closed' });

    doc.items.splice(1, 0, ...gone);
    feeds.serve('/jobs.json', jsonFeed(doc));
    expect(await sync('jobs')).toMatchObject({ ok: true, updated: 1, reopened: 1, closed: 0 });
    expect((await rows('jobs')).get('gig-102')).toMatchObject({ id: open.id, status: 'open' });
  });

  it('of one source at the same time write it once', async () => {
    const [a, b] = await Promise.all([sync('twice'), sync('twice')]);
    expect(a.ok && b.ok).toBe(true);
    expect(a.inserted + b.inserted).toBe(3);
    expect(a.unchanged + b.unchanged).toBe(3);
    expect((await rows('twice')).size).toBe(3);
  });

  it('leave alone an item still listed that cannot be read this time', async () => {
    const doc = jobsFeed();
    delete doc.items[1].title; // gig-102 is listed but unusable
    feeds.serve('/jobs.json', jsonFeed(doc));
    expect(await sync('jobs')).toMatchObject({ ok: true, skipped: 3, closed: 0 });
    expect((await rows('jobs')).get('gig-102')!.status).toBe('open');
  });
});

describe('a malformed source', () => {
  const tight = { timeoutMs: 500, maxBytes: 64 * 1024 };

  it('is logged and skipped, and the others still sync', async () => {
    feeds.serve('/broken.rss', { body: '<rss version="2.0"><channel><item><title>cut off', contentType: 'application/rss+xml' });
    feeds.serve('/down.json', { status: 503, body: '<html>Service Unavailable</html>', contentType: 'text/html' });
    feeds.serve('/slow.json', { ...jsonFeed(jobsFeed()), delayMs: 3_000 });
    feeds.serve(
      '/huge.json',
      jsonFeed({ version: 'https://jsonfeed.org/version/1.1', items: [{ id: 'x', title: 'x'.repeat(100_000), url: 'https://x.example' }] }),
    );
    const results = [];
    for (const name of ['broken', 'down', 'slow', 'huge', 'bounties']) results.push(await sync(name, { limits: tight }));
    expect(results.map((r) => [r.source, r.ok])).toEqual([
      ['broken', false],
      ['down', false],
      ['slow', false],
      ['huge', false],
      ['bounties', true],
    ]);
    expect(results[0]!.error).toMatch(/not well-formed XML/);
    expect(results[1]!.error).toMatch(/HTTP 503/);
    expect(results[2]!.error).toMatch(/no complete response within 500 ms/);
    expect(results[3]!.error).toMatch(/over the 65536-byte limit/);
    for (const name of ['broken', 'down', 'slow', 'huge']) {
      expect(logs.some((l) => l.level === 'error' && l.obj.source === name && l.msg.includes('skipped'))).toBe(true);
      expect((await rows(name)).size).toBe(0);
    }
  });

  it('closes nothing: its gigs stay as they were until it is readable again', async () => {
    feeds.serve('/gigs.rss', { body: '<html><body>We moved!</body></html>', contentType: 'text/html' });
    const result = await sync('board');
    expect(result).toMatchObject({ ok: false, closed: 0 });
    expect(result.error).toMatch(/not an RSS 2.0 feed/);
    expect([...(await rows('board')).values()].map((g) => g.status)).toEqual(['open', 'open', 'open']);

    // Items, none of them usable: a changed format, not an emptied board.
    feeds.serve('/gigs.rss', {
      body: '<rss version="2.0"><channel><item><description>x</description></item></channel></rss>',
      contentType: 'application/rss+xml',
    });
    expect(await sync('board')).toMatchObject({ ok: false, closed: 0 });
    expect([...(await rows('board')).values()].every((g) => g.status === 'open')).toBe(true);

    // A feed that is empty for real closes everything it had.
    feeds.serve('/gigs.rss', { body: '<rss version="2.0"><channel><title>x</title></channel></rss>', contentType: 'application/rss+xml' });
    expect(await sync('board')).toMatchObject({ ok: true, fetched: 0, closed: 3 });
    feeds.serve('/gigs.rss', { body: fixture('gigs.rss.xml'), contentType: 'application/rss+xml' });
    expect(await sync('board')).toMatchObject({ ok: true, reopened: 3 });
  });
});

describe('the schedule', () => {
  it('has one pg-boss schedule per enabled source on the source-sync queue', async () => {
    const schedules = await server.runtime.jobs.boss.getSchedules(SOURCE_SYNC_QUEUE);
    const byKey = new Map(schedules.map((s) => [s.key, s]));
    expect([...byKey.keys()].sort()).toEqual(['board', 'bounties', 'broken', 'by-job', 'down', 'gh', 'huge', 'jobs', 'slow', 'twice']);
    expect(byKey.get('jobs')).toMatchObject({ name: SOURCE_SYNC_QUEUE, cron: '7 3 1 1 *', data: { source: 'jobs' } });
    expect(byKey.get('gh')).toMatchObject({ cron: '5 4 1 1 *', data: { source: 'gh' } });
    expect(byKey.has('off')).toBe(false); // disabled
  });

  it('runs a sync when its job comes', async () => {
    feeds.serve('/job.atom', { body: fixture('gigs.atom.xml'), contentType: 'application/atom+xml' });
    feeds.serve('/twice.json', jsonFeed(jobsFeed()));
    expect((await rows('by-job')).size).toBe(0);
    await server.runtime.jobs.boss.send(SOURCE_SYNC_QUEUE, { source: 'by-job' });
    let landed = 0;
    for (let i = 0; i < 100 && landed < 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      landed = (await rows('by-job')).size;
    }
    expect(landed).toBe(2);
    expect((await rows('by-job')).get('tag:freelance.example.net,2025:bounty-7781')).toMatchObject({
      source: 'by-job',
      status: 'open',
      compensationType: 'bounty',
    });
  });
});

describe('through the API', () => {
  it('GET /api/gigs lists external gigs beside native ones', async () => {
    const alice = await server.user('Alice');
    const created = await alice.api.POST('/api/gigs', { body: { title: 'Native: port a CLI to Rust', tags: ['rust'] } });
    expect(created.response.status).toBe(201);
    const { data, response } = await alice.api.GET('/api/gigs', { params: { query: { limit: 100 } } });
    expect(response.status).toBe(200);
    const bySource = new Set(data!.data.map((g) => g.source));
    for (const s of ['native', 'jobs', 'board', 'bounties', 'gh']) expect(bySource.has(s)).toBe(true);
    const external = data!.data.find((g) => g.source === 'jobs' && g.external_id === 'gig-103')!;
    expect(external).toMatchObject({
      source: 'jobs',
      client_user_id: null,
      url: 'https://partner.example.org/listing/9',
      status: 'open',
      compensation_type: 'fixed',
      compensation_min_cents: 500000,
    });
    // Closed external gigs are not among the open ones, but remain readable.
    expect(data!.data.some((g) => g.external_id === '2981234501')).toBe(false);
    const closed = (await rows('gh')).get('2981234501')!;
    const one = await alice.api.GET('/api/gigs/{id}', { params: { path: { id: closed.id } } });
    expect(one.data).toMatchObject({ status: 'closed', source: 'gh' });
  });

  it('discovery ranks external and native gigs together', async () => {
    const bob = await server.user('Bob');
    const { data, response } = await bob.api.GET('/api/discovery/gigs', { params: { query: { q: 'rust', limit: 50 } } });
    expect(response.status).toBe(200);
    const found = data!.data.map((g) => `${g.source}:${g.title}`);
    expect(found).toContain('native:Native: port a CLI to Rust');
    expect(found).toContain('jobs:Senior Rust engineer for a WASM plugin system');
    const external = data!.data.find((g) => g.source === 'jobs' && g.external_id === 'https://jobs.example.com/gigs/101')!;
    expect(external).toMatchObject({
      url: 'https://jobs.example.com/gigs/101',
      client_user_id: null,
      compensation_type: 'hourly',
      compensation_min_cents: 8000,
    });

    const onlyJobs = await bob.api.GET('/api/discovery/gigs', { params: { query: { q: 'rust', sources: ['jobs'] } } });
    expect(onlyJobs.data!.data.length).toBeGreaterThan(0);
    expect(onlyJobs.data!.data.every((g) => g.source === 'jobs')).toBe(true);
  });
});
