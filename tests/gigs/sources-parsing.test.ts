// The pure parts of external sources: compensation read from text, HTML to text, tags, the
// sources file's validation, and GitHub's Link header. No server, no database.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCompensation, type Compensation } from '../../src/sources/compensation.ts';
import { htmlToText, normalizeExternalTags, toExternalGig, ItemError } from '../../src/sources/mapper.ts';
import { loadSources, parseSources, SourcesConfigError } from '../../src/sources/config.ts';
import { nextLink } from '../../src/sources/github-issues.ts';
import { parseRss } from '../../src/sources/rss.ts';
import { parseAtom } from '../../src/sources/atom.ts';
import { describeResult } from '../../src/sources/report.ts';
import { parseJsonFeed } from '../../src/sources/json-feed.ts';
import { FeedError } from '../../src/sources/http.ts';

const pay = (type: Compensation['type'], min: number | null, max: number | null, currency?: string) => ({
  type,
  minCents: min,
  maxCents: max,
  currency,
});

describe('compensation from text', () => {
  const cases: [string, ReturnType<typeof pay>][] = [
    ['$80/hr', pay('hourly', 8000, 8000, 'USD')],
    ['$80 per hour', pay('hourly', 8000, 8000, 'USD')],
    ['paid $95 an hour', pay('hourly', 9500, 9500, 'USD')],
    ['€2,000 fixed', pay('fixed', 200000, 200000, 'EUR')],
    ['USD 5k', pay('fixed', 500000, 500000, 'USD')],
    ['$250 bounty', pay('bounty', 25000, 25000, 'USD')],
    ['Bounty: $1,500', pay('bounty', 150000, 150000, 'USD')],
    ['Reward 200 USD', pay('bounty', 20000, 20000, 'USD')],
    ['$60-80/h', pay('hourly', 6000, 8000, 'USD')],
    ['Rate: $60 – $80 per hour', pay('hourly', 6000, 8000, 'USD')],
    ['60-80 USD/hr', pay('hourly', 6000, 8000, 'USD')],
    ['hourly rate 75 EUR', pay('hourly', 7500, 7500, 'EUR')],
    ['£500', pay('fixed', 50000, 50000, 'GBP')],
    ['5-10k EUR', pay('fixed', 500000, 1000000, 'EUR')],
    ['$5k-$10k budget', pay('fixed', 500000, 1000000, 'USD')],
    ['500-1k EUR', pay('fixed', 50000, 100000, 'EUR')],
    ['Pay 2.000,50 € fixed', pay('fixed', 200050, 200050, 'EUR')],
    ['Fixed price: US$1,200.', pay('fixed', 120000, 120000, 'USD')],
    ['C$90/hour', pay('hourly', 9000, 9000, 'CAD')],
    ['¥50000 flat', pay('fixed', 50000, 50000, 'JPY')],
    ['1.5k USDC on merge', pay('fixed', 150000, 150000, 'USD')],
    // A salary or a day rate is no gig type: unknown, but the currency still tells.
    ['$120k/yr', pay('unknown', null, null, 'USD')],
    ['£400 per day', pay('unknown', null, null, 'GBP')],
    ['$100,000 - $120,000 a year, or $90/hr as a contractor', pay('hourly', 9000, 9000, 'USD')],
    // Numbers without a currency are not pay; "$50 - 2 days" is no range.
    ['80 hours of work, see issue #500', pay('unknown', null, null, undefined)],
    ['$50 - 2 days', pay('fixed', 5000, 5000, 'USD')],
    ['run `$ npm install` first', pay('unknown', null, null, undefined)],
    ['$5m budget', pay('unknown', null, null, undefined)],
    ['', pay('unknown', null, null, undefined)],
  ];
  it.each(cases)('%j', (text, expected) => {
    expect(parseCompensation(text)).toEqual(expected);
  });

  it('reads "$" as the source\'s own dollar and a plain amount as the board\'s kind', () => {
    expect(parseCompensation('$80/hr', { defaultCurrency: 'CAD' })).toEqual(pay('hourly', 8000, 8000, 'CAD'));
    expect(parseCompensation('$80/hr', { defaultCurrency: 'EUR' })).toEqual(pay('hourly', 8000, 8000, 'USD'));
    expect(parseCompensation('[$300] Fix the parser', { bareType: 'bounty' })).toEqual(pay('bounty', 30000, 30000, 'USD'));
  });
});

describe('items to gigs', () => {
  it('strips HTML to readable text', () => {
    expect(
      htmlToText('<p>Hello <b>world</b> &amp; friends&nbsp;&#8212; ok</p><ul><li>one</li><li>two</li></ul><script>x()</script><!-- c -->'),
    ).toBe('Hello world & friends — ok\n\n- one\n- two');
    expect(htmlToText('a < b and c > d')).toBe('a < b and c > d');
  });

  it('normalizes tags like native gigs, within their limits', () => {
    const many = Array.from({ length: 30 }, (_, i) => `t${i}`);
    expect(normalizeExternalTags([' Rust ', 'rust', 'WASM', 42, '', 'x'.repeat(41), 'Web  Dev'])).toEqual(['rust', 'wasm', 'web dev']);
    expect(normalizeExternalTags(many)).toHaveLength(20);
  });

  it('refuses an item without id, title or an http(s) url, and resolves relative links', () => {
    const options = { baseUrl: 'https://feeds.example.com/a/feed.json', defaultCurrency: 'USD', bareType: 'fixed' as const };
    const ok = { id: 7, title: 'T', tags: [], url: '/g/7', date: 'not a date' };
    expect(toExternalGig(ok, options)).toMatchObject({
      externalId: '7',
      url: 'https://feeds.example.com/g/7',
      postedAt: null,
      currency: 'USD',
      compensationType: 'unknown',
    });
    expect(() => toExternalGig({ ...ok, id: ' ' }, options)).toThrow(ItemError);
    expect(() => toExternalGig({ ...ok, title: '<b></b>' }, options)).toThrow(/no title/);
    expect(() => toExternalGig({ ...ok, url: 'javascript:alert(1)' }, options)).toThrow(/not http/);
    expect(toExternalGig({ ...ok, title: 'x'.repeat(300) }, options).title).toHaveLength(200);
  });

  it('rejects documents that are not the format', () => {
    expect(() => parseRss('<rss><channel><item></channel></rss>', 'u')).toThrow(/not well-formed XML/);
    expect(() => parseRss('<feed xmlns="http://www.w3.org/2005/Atom"/>', 'u')).toThrow(/not an RSS 2.0 feed/);
    expect(() => parseAtom('<html><body>Oops</body></html>', 'u')).toThrow(/not an Atom feed/);
    expect(() => parseJsonFeed('{"items": []}', 'u')).toThrow(FeedError);
    expect(() => parseJsonFeed('{"version": "https://jsonfeed.org/version/1.1", "items": {}}', 'u')).toThrow(/items/);
    expect(() => parseJsonFeed('<html>', 'u')).toThrow(/not valid JSON/);
    expect(parseRss('<rss version="2.0"><channel><title>empty</title></channel></rss>', 'u')).toEqual([]);
  });
});

describe('the sources file', () => {
  const valid = { name: 'board', kind: 'rss', url: 'https://board.example.org/rss' };
  const bad = (source: object) => () => parseSources({ sources: [source] }, 'sources.json');

  it('fills in defaults', () => {
    const [rss, gh] = parseSources({ sources: [valid, { name: 'gh', kind: 'github_issues' }] }, 'f');
    expect(rss).toMatchObject({ schedule: '*/30 * * * *', enabled: true, defaultCurrency: 'USD', query: undefined });
    expect(gh).toMatchObject({ url: 'https://api.github.com', query: 'label:bounty state:open', maxPages: 5, tokenEnv: undefined });
  });

  it('names the file, the source and the field of every mistake', () => {
    expect(bad({ ...valid, name: 'Board' })).toThrow('sources.json: sources[0]: "name" must match');
    expect(bad({ ...valid, name: 'native' })).toThrow(/must not be "native"/);
    expect(bad({ ...valid, name: 'x'.repeat(41) })).toThrow(/"name" must match/);
    expect(bad({ ...valid, kind: 'csv' })).toThrow('source "board": "kind" must be one of json_feed, rss, atom, github_issues');
    expect(bad({ ...valid, url: 'ftp://x' })).toThrow(/"url" must be http or https/);
    expect(bad({ name: 'board', kind: 'atom' })).toThrow(/"url" is required/);
    expect(bad({ ...valid, schedule: 'every hour' })).toThrow(/"schedule" must be a cron expression/);
    expect(bad({ ...valid, enabled: 'yes' })).toThrow(/"enabled" must be true or false/);
    expect(bad({ ...valid, default_currency: 'usd' })).toThrow(/"default_currency"/);
    expect(bad({ ...valid, token_env: 'GITHUB_TOKEN' })).toThrow(/"token_env" applies to github_issues sources only/);
    expect(bad({ ...valid, shedule: '* * * * *' })).toThrow(/unknown field "shedule"/);
    expect(bad({ name: 'gh', kind: 'github_issues', max_pages: 11 })).toThrow(/"max_pages"/);
    expect(bad({ name: 'gh', kind: 'github_issues', token_env: 'not-a-var' })).toThrow(/"token_env"/);
    expect(() => parseSources({ sources: [valid, valid] }, 'f')).toThrow(/two sources are named "board"/);
    expect(() => parseSources([], 'f')).toThrow(/must be a JSON object/);
    expect(() => parseSources({ source: [] }, 'f')).toThrow(/unknown top-level field "source"/);
  });

  it('reads the file, reports bad JSON, and means "no sources" without one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-sources-'));
    try {
      const file = path.join(dir, 'sources.json');
      fs.writeFileSync(file, '{"sources": [');
      expect(() => loadSources(file)).toThrow(SourcesConfigError);
      expect(() => loadSources(file)).toThrow(`${file}: not valid JSON`);
      fs.writeFileSync(file, JSON.stringify({ sources: [valid] }));
      expect(loadSources(file).map((s) => s.name)).toEqual(['board']);
      expect(loadSources(undefined)).toEqual([]);
      expect(loadSources(path.join(process.cwd(), 'sources.example.json')).length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GitHub Link header', () => {
  it('finds rel="next" among the others', () => {
    const header =
      '<https://api.github.com/search/issues?q=x&page=1>; rel="prev", <https://api.github.com/search/issues?q=x&page=3>; rel="next", <https://api.github.com/search/issues?q=x&page=9>; rel="last"';
    expect(nextLink(header)).toBe('https://api.github.com/search/issues?q=x&page=3');
    expect(nextLink('<https://a/b?page=9>; rel="last"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});

describe('describeResult', () => {
  const base = { source: 'jobs', ok: true, fetched: 1, skipped: 0, inserted: 1, updated: 0, reopened: 0, unchanged: 0, closed: 0 };
  it('counts one item in the singular, others in the plural, and says when a source failed', () => {
    expect(describeResult(base)).toBe('jobs: 1 item; 1 new, 0 updated (0 reopened), 0 unchanged, 0 closed');
    expect(describeResult({ ...base, fetched: 0, inserted: 0 })).toMatch(/^jobs: 0 items;/);
    expect(describeResult({ ...base, fetched: 3, skipped: 1 })).toMatch(/^jobs: 3 items \(1 skipped\);/);
    expect(describeResult({ ...base, ok: false, error: 'HTTP 500' })).toBe('jobs: FAILED, nothing changed: HTTP 500');
  });
});
