// The two ways an arm of discovery's first phase reads its candidates (src/search/candidates-sql.ts):
// walking posted_at in the functions of migration 0013, or through a GIN index in plain SQL. Both
// must give the same gigs — the newest `limit` open gigs that match and pass the filters, ties
// broken by id — whichever the statistics choose, on PGlite and on a server Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { gigs } from '../db/schema.ts';
import { rowsOf } from '../db/sql.ts';
import { newId } from '../src/ids.ts';
import { type Arm, type ArmMatch, candidateArms, candidatesCte, type GigFilters } from '../src/search/candidates-sql.ts';
import { filterConditions } from '../src/search/ranking-sql.ts';

let server: TestServer;
const DAY = 86_400_000;
const now = Date.now();
/** Created at: the first 40 gigs a day ago, the rest now (a later page's createdBefore cuts them). */
const cutoffMicros = (now - DAY / 2) * 1000;

beforeAll(async () => {
  server = await startTestServer();
  const types = ['fixed', 'hourly', 'bounty', 'unknown'] as const;
  const rows = Array.from({ length: 60 }, (_, i) => ({
    id: newId(),
    clientUserId: null,
    title: i % 3 === 0 ? `Zebra tracker ${i}` : `Savanna survey ${i}`,
    description: i % 3 === 1 ? 'We count every zebra we see.' : 'Field work.',
    tags: [['rust'], ['go', 'zebra-care'], ['rust', 'zebra-care'], []][i % 4]!,
    compensationType: types[i % 4],
    currency: i % 5 === 0 ? 'EUR' : 'USD',
    rateCents: i % 2 ? 1000 + i * 100 : null,
    compensationMinCents: i % 2 ? null : 500 + i * 50,
    compensationMaxCents: i % 2 ? null : 2000 + i * 50,
    // Closed and draft gigs are never candidates, whichever way.
    status: i % 11 === 5 ? ('closed' as const) : ('open' as const),
    source: i % 3 === 2 ? 'weworkremotely' : 'remoteok',
    externalId: `walk-${i}`,
    // Pairs share a posted_at, so the id decides between them.
    postedAt: new Date(now - Math.floor(((i * 7) % 60) / 2) * DAY),
    createdAt: new Date(i < 40 ? now - DAY : now),
  }));
  await server.db.insert(gigs).values(rows);
});

afterAll(async () => {
  await server?.close();
});

const NO_FILTERS: GigFilters = { tags: [], minCompensationCents: null, compensationType: null, currency: null, sources: [] };
const zebra = sql`websearch_to_tsquery('english', ${'zebra'})`;

async function candidates(match: ArmMatch, limit: number, walk: boolean, filters: GigFilters, createdBefore: number | null) {
  const arm: Arm = { match, limit, walk };
  const cte = candidatesCte({ arms: [arm], filters, where: filterConditions(filters), createdBefore, extra: [] });
  const rows = await rowsOf<{ id: string }>(server.db, sql`with ${cte} done as (select 1) select id from cand order by id`);
  return rows.map((r) => r.id);
}

describe('an arm read by walking posted_at or through its GIN index', () => {
  const cases: { name: string; match: ArmMatch; filters: GigFilters; createdBefore?: number }[] = [
    { name: 'a word in the title or tags', match: { kind: 'head', tsquery: zebra }, filters: NO_FILTERS },
    { name: 'a word anywhere', match: { kind: 'text', tsquery: zebra }, filters: NO_FILTERS },
    { name: 'a tag', match: { kind: 'tags', tags: ['rust'] }, filters: NO_FILTERS },
    {
      name: 'a word anywhere, every filter',
      match: { kind: 'text', tsquery: zebra },
      filters: {
        tags: ['zebra-care', 'rust'],
        minCompensationCents: 1500,
        compensationType: 'fixed',
        currency: 'USD',
        sources: ['remoteok', 'weworkremotely'],
      },
    },
    {
      name: 'a word in the title or tags, some filters, a later page',
      match: { kind: 'head', tsquery: zebra },
      filters: { ...NO_FILTERS, sources: ['remoteok'], minCompensationCents: 2500 },
      createdBefore: cutoffMicros,
    },
    {
      name: 'a tag, filtered by type and currency',
      match: { kind: 'tags', tags: ['zebra-care'] },
      filters: { ...NO_FILTERS, compensationType: 'hourly', currency: 'USD' },
      createdBefore: cutoffMicros,
    },
  ];
  for (const c of cases) {
    it(`gives the same newest gigs: ${c.name}`, async () => {
      for (const limit of [3, 1000]) {
        const walked = await candidates(c.match, limit, true, c.filters, c.createdBefore ?? null);
        const indexed = await candidates(c.match, limit, false, c.filters, c.createdBefore ?? null);
        expect(walked.length).toBeGreaterThan(0);
        expect(walked).toEqual(indexed);
        if (limit === 3) expect(walked.length).toBe(3);
      }
    });
  }

  it('reads several arms through their indexes in one pass, each keeping its own newest', async () => {
    const filters = { ...NO_FILTERS, currency: 'USD' };
    const matches: ArmMatch[] = [
      { kind: 'head', tsquery: zebra },
      { kind: 'text', tsquery: zebra },
      { kind: 'tags', tags: ['rust'] },
      { kind: 'all-skills', skills: [['rust'], ['zebra-care']] },
    ];
    const together = async (limit: number, createdBefore: number | null) => {
      const arms = matches.map((match) => ({ match, limit, walk: false }));
      const cte = candidatesCte({ arms, filters, where: filterConditions(filters), createdBefore, extra: [] });
      const rows = await rowsOf<{ id: string }>(server.db, sql`with ${cte} done as (select 1) select id from cand order by id`);
      return rows.map((r) => r.id);
    };
    for (const [limit, createdBefore] of [
      [2, null],
      [4, cutoffMicros],
      [1000, null],
    ] as const) {
      const each = await Promise.all(matches.map((m) => candidates(m, limit, false, filters, createdBefore)));
      const union = [...new Set(each.flat())].sort();
      expect(union.length).toBeGreaterThan(Math.min(limit, 10));
      expect(await together(limit, createdBefore)).toEqual(union);
    }
  });

  it('never walks the arm of every requested skill (their bitmaps meet in the tags index)', async () => {
    const arm: Arm = { match: { kind: 'all-skills', skills: [['rust'], ['zebra-care']] }, limit: 5, walk: true };
    expect(() =>
      candidatesCte({ arms: [arm], filters: NO_FILTERS, where: filterConditions(NO_FILTERS), createdBefore: null, extra: [] }),
    ).toThrow(/never walked/);
  });
});

describe('which arms walk', () => {
  const shares = { head: 0, body: 0, tags: new Map<string, number>(), filters: { all: 1, indexed: 1 }, gigs: 100_000 };
  const arms = (input: Partial<Parameters<typeof candidateArms>[0]>) =>
    candidateArms({ websearch: 'api', allWords: null, recallTags: [], requestedSkills: [], filters: NO_FILTERS, shares, ...input }).map(
      (a) => `${a.match.kind}${a.walk ? ' walks' : ''}`,
    );

  it('walks a common word and reads a rare one through its index; at a larger size a bitmap costs more', () => {
    expect(arms({ shares: { ...shares, head: 0.02, body: 0.14 } })).toEqual(['head', 'text walks']);
    expect(arms({ shares: { ...shares, head: 0.02, body: 0.14, gigs: 1_000_000 } })).toEqual(['head walks', 'text walks']);
    expect(arms({ shares: { ...shares, head: 0.05, body: 0.14 } })).toEqual(['head walks', 'text walks']);
    expect(arms({ shares: { ...shares, head: 0.001, body: 0.002 } })).toEqual(['head', 'text']);
    // Unknown to the statistics: rare.
    expect(arms({})).toEqual(['head', 'text']);
  });

  it('reads all the words of a short query through the index, as an arm of their own', () => {
    expect(arms({ allWords: 'python developer', shares: { ...shares, head: 0.05, body: 0.14 } })).toEqual([
      'head walks',
      'text walks',
      'head',
    ]);
  });

  it('counts the filters that narrow a walk but not the index read', () => {
    // A common word, but only one gig in fifty passes the type and currency, which have no index of their own.
    expect(arms({ shares: { ...shares, head: 0.04, body: 0.14, filters: { all: 0.02, indexed: 1 } } })).toEqual(['head', 'text']);
    // At 1,000,000 gigs, one in a hundred passing: too far along the covering index; along the
    // type's own posted_at index, which holds that type's gigs only, worth it.
    const million = { ...shares, head: 0.04, body: 0.14, gigs: 1_000_000 };
    expect(arms({ shares: { ...million, filters: { all: 0.01, indexed: 1 } } })).toEqual(['head', 'text walks']);
    expect(arms({ shares: { ...million, filters: { all: 0.01, indexed: 0.01 } } })).toEqual(['head walks', 'text walks']);
  });
});
