// The ways an arm of discovery's first phase reads its candidates (src/search/candidates-sql.ts):
// walking posted_at in the functions of migration 0013, through a GIN index in plain SQL, or, for
// an arm of tags, along each tag's rows of open_gig_tags (migration 0014, kept by a trigger). All
// must give the same gigs — the newest `limit` open gigs that match and pass the filters, ties
// broken by id — whichever the statistics choose, on PGlite and on a server Postgres.
import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { gigs } from '../../db/schema.ts';
import { rowsOf } from '../../db/sql.ts';
import { newId } from '../../src/ids.ts';
import { type Arm, type ArmMatch, type ArmRead, candidateArms, candidatesCte, type GigFilters } from '../../src/search/candidates-sql.ts';
import { filterConditions } from '../../src/search/ranking-sql.ts';
import { openGigTags } from '../../db/repositories/search.ts';

const server = testFileServer();
const DAY = 86_400_000;
const now = Date.now();
/** Created at: the first 40 gigs a day ago, the rest now (a later page's createdBefore cuts them). */
const cutoffMicros = (now - DAY / 2) * 1000;

beforeAll(async () => {
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

const NO_FILTERS: GigFilters = { tags: [], minCompensationCents: null, compensationType: null, currency: null, sources: [] };
/** Every filter at once, each letting some of the fixture's gigs through. */
const EVERY_FILTER: GigFilters = {
  tags: ['zebra-care', 'rust'],
  minCompensationCents: 1500,
  compensationType: 'fixed',
  currency: 'USD',
  sources: ['remoteok', 'weworkremotely'],
};
const zebra = sql`websearch_to_tsquery('english', ${'zebra'})`;

async function candidates(match: ArmMatch, limit: number, read: ArmRead, filters: GigFilters, createdBefore: number | null) {
  const arm: Arm = { match, limit, read };
  const cte = candidatesCte({ arms: [arm], filters, where: filterConditions(filters), createdBefore, extra: [] });
  const rows = await rowsOf<{ id: string }>(server.db, sql`with ${cte} done as (select 1) select id from cand order by id`);
  return rows.map((r) => r.id);
}

describe('an arm read by walking posted_at, through its GIN index or along open_gig_tags', () => {
  const cases: { name: string; match: ArmMatch; filters: GigFilters; createdBefore?: number }[] = [
    { name: 'a word in the title or tags', match: { kind: 'head', tsquery: zebra }, filters: NO_FILTERS },
    { name: 'a word anywhere', match: { kind: 'text', tsquery: zebra }, filters: NO_FILTERS },
    { name: 'a tag', match: { kind: 'tags', tags: ['rust'] }, filters: NO_FILTERS },
    {
      name: 'a word anywhere, every filter',
      match: { kind: 'text', tsquery: zebra },
      filters: EVERY_FILTER,
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
    // The arm's tags all of the tags filter: no other filter, so open_gig_tags alone answers.
    { name: 'a tag of the tags filter', match: { kind: 'tags', tags: ['rust'] }, filters: { ...NO_FILTERS, tags: ['rust', 'go'] } },
    // Gigs carrying both tags: each once, however many of the arm's tags they carry.
    { name: 'two tags', match: { kind: 'tags', tags: ['rust', 'zebra-care'] }, filters: NO_FILTERS },
    {
      name: 'two tags, a later page',
      match: { kind: 'tags', tags: ['zebra-care', 'rust'] },
      filters: NO_FILTERS,
      createdBefore: cutoffMicros,
    },
    {
      name: 'two tags, every filter',
      match: { kind: 'tags', tags: ['rust', 'go'] },
      filters: EVERY_FILTER,
    },
    {
      name: 'a tag, min pay and a source, a later page',
      match: { kind: 'tags', tags: ['rust'] },
      filters: { ...NO_FILTERS, sources: ['remoteok'], minCompensationCents: 2500 },
      createdBefore: cutoffMicros,
    },
  ];
  for (const c of cases) {
    it(`gives the same newest gigs: ${c.name}`, async () => {
      for (const limit of [3, 1000]) {
        const walked = await candidates(c.match, limit, 'walk', c.filters, c.createdBefore ?? null);
        const indexed = await candidates(c.match, limit, 'gin', c.filters, c.createdBefore ?? null);
        expect(walked.length).toBeGreaterThan(0);
        expect(walked).toEqual(indexed);
        if (limit === 3) expect(walked.length).toBe(3);
        if (c.match.kind === 'tags')
          expect(await candidates(c.match, limit, 'tag-rows', c.filters, c.createdBefore ?? null)).toEqual(walked);
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
      const arms = matches.map((match): Arm => ({ match, limit, read: 'gin' }));
      const cte = candidatesCte({ arms, filters, where: filterConditions(filters), createdBefore, extra: [] });
      const rows = await rowsOf<{ id: string }>(server.db, sql`with ${cte} done as (select 1) select id from cand order by id`);
      return rows.map((r) => r.id);
    };
    for (const [limit, createdBefore] of [
      [2, null],
      [4, cutoffMicros],
      [1000, null],
    ] as const) {
      const each = await Promise.all(matches.map((m) => candidates(m, limit, 'gin', filters, createdBefore)));
      const union = [...new Set(each.flat())].sort();
      expect(union.length).toBeGreaterThan(Math.min(limit, 10));
      expect(await together(limit, createdBefore)).toEqual(union);
    }
  });

  it('never walks the arm of every requested skill (their bitmaps meet in the tags index)', async () => {
    const arm: Arm = { match: { kind: 'all-skills', skills: [['rust'], ['zebra-care']] }, limit: 5, read: 'walk' };
    expect(() =>
      candidatesCte({ arms: [arm], filters: NO_FILTERS, where: filterConditions(NO_FILTERS), createdBefore: null, extra: [] }),
    ).toThrow(/never walked/);
  });
});

describe('open_gig_tags, kept by the trigger of migration 0014', () => {
  /** The gig's rows: tag and posted_at (epoch ms). */
  const rowsFor = async (id: string) =>
    (
      await rowsOf<{ tag: string; ms: number }>(
        server.db,
        sql`select tag, (extract(epoch from posted_at) * 1000)::float8 as ms from open_gig_tags where gig_id = ${id} order by tag`,
      )
    ).map((r) => `${r.tag}@${Number(r.ms)}`);
  /** Rows that are not one per distinct tag of an open gig with its posted_at, and such rows missing: none. */
  const strayRows = async () => {
    const expected = sql`select distinct t.tag, g.posted_at, g.id as gig_id from gigs g cross join lateral unnest(g.tags) t(tag) where g.status = 'open'`;
    const rows = await rowsOf<{ n: number }>(
      server.db,
      sql`select ((select count(*) from (select tag, posted_at, gig_id from open_gig_tags except all ${expected}) a)
        + (select count(*) from (${expected} except all select tag, posted_at, gig_id from open_gig_tags) b))::int as n`,
    );
    return Number(rows[0]!.n);
  };

  it('holds one row per distinct tag of each open gig through insert, changes and delete', async () => {
    // The gigs of beforeAll, inserted before: already there.
    expect(await strayRows()).toBe(0);
    const id = newId();
    const posted = new Date(now - 3 * DAY);
    await server.db.insert(gigs).values({
      id,
      clientUserId: null,
      title: 'Trigger gig',
      description: 'Kept in open_gig_tags.',
      tags: ['okapi', 'tapir', 'okapi'],
      compensationType: 'fixed',
      currency: 'USD',
      status: 'open',
      source: 'remoteok',
      externalId: 'trigger-1',
      postedAt: posted,
    });
    expect(await rowsFor(id)).toEqual([`okapi@${posted.getTime()}`, `tapir@${posted.getTime()}`]);

    await server.db
      .update(gigs)
      .set({ tags: ['tapir', 'quagga'] })
      .where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([`quagga@${posted.getTime()}`, `tapir@${posted.getTime()}`]);

    await server.db.update(gigs).set({ status: 'closed' }).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([]);
    // A change to a closed gig's tags leaves it without rows.
    await server.db
      .update(gigs)
      .set({ tags: ['quagga'] })
      .where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([]);
    await server.db.update(gigs).set({ status: 'open' }).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([`quagga@${posted.getTime()}`]);

    const reposted = new Date(now - DAY);
    await server.db.update(gigs).set({ postedAt: reposted }).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([`quagga@${reposted.getTime()}`]);
    // Other columns leave the rows as they are.
    await server.db.update(gigs).set({ title: 'Trigger gig, renamed' }).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([`quagga@${reposted.getTime()}`]);
    await server.db.update(gigs).set({ tags: [] }).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([]);
    await server.db
      .update(gigs)
      .set({ tags: ['quagga', 'okapi'] })
      .where(eq(gigs.id, id));
    expect(await strayRows()).toBe(0);

    await server.db.delete(gigs).where(eq(gigs.id, id));
    expect(await rowsFor(id)).toEqual([]);
    expect(await strayRows()).toBe(0);
  });

  it("lists the open gigs' distinct tags for the vocabulary, none only a closed gig carries", async () => {
    const closed = newId();
    await server.db.insert(gigs).values({
      id: closed,
      clientUserId: null,
      title: 'Closed gig',
      description: 'Its tag is no skill anyone can search for.',
      tags: ['aardvark-only-closed', 'rust'],
      compensationType: 'fixed',
      currency: 'USD',
      status: 'closed',
      source: 'remoteok',
      externalId: 'vocabulary-closed',
      postedAt: new Date(now),
    });
    const scanned = await rowsOf<{ tag: string }>(server.db, sql`select distinct unnest(tags) as tag from gigs where status = 'open'`);
    const tags = await openGigTags(server.db);
    expect([...tags].sort()).toEqual(scanned.map((r) => r.tag).sort());
    expect(tags).toEqual(expect.arrayContaining(['go', 'rust', 'zebra-care']));
    expect(tags).not.toContain('aardvark-only-closed');
    await server.db.delete(gigs).where(eq(gigs.id, closed));
  });
});

describe('which arms walk', () => {
  const shares = { head: 0, body: 0, tags: new Map<string, number>(), filters: { all: 1, indexed: 1, type: 1 }, gigs: 100_000 };
  const arms = (input: Partial<Parameters<typeof candidateArms>[0]>) =>
    candidateArms({ websearch: 'api', allWords: null, recallTags: [], requestedSkills: [], filters: NO_FILTERS, shares, ...input }).map(
      (a) => `${a.match.kind}${a.read === 'walk' ? ' walks' : a.read === 'tag-rows' ? ' tag-rows' : ''}`,
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
    // A common word, but only one gig in fifty passes the currency and sources, which have no index of their own.
    expect(arms({ shares: { ...shares, head: 0.04, body: 0.14, filters: { all: 0.02, indexed: 1, type: 1 } } })).toEqual(['head', 'text']);
    // At 1,000,000 gigs, one in a hundred passing: too far along the covering index; along the
    // type's own posted_at index, which holds that type's gigs only, worth it.
    const million = { ...shares, head: 0.04, body: 0.14, gigs: 1_000_000 };
    expect(arms({ shares: { ...million, filters: { all: 0.01, indexed: 1, type: 1 } } })).toEqual(['head', 'text walks']);
    expect(arms({ shares: { ...million, filters: { all: 0.01, indexed: 0.01, type: 1 } } })).toEqual(['head walks', 'text walks']);
  });

  it("walks a type's gigs along its covering index, where a currency's index sends each entry to the table", () => {
    // One gig in fifty of that type or currency: the type's entries are tested in the index (7,500
    // for the head arm), the currency's in table rows (four times as dear), against a bitmap of 4,000 rows.
    const narrow = { ...shares, head: 0.04, body: 0.14 };
    expect(arms({ shares: { ...narrow, filters: { all: 0.02, indexed: 0.02, type: 0.02 } } })).toEqual(['head walks', 'text walks']);
    expect(arms({ shares: { ...narrow, filters: { all: 0.02, indexed: 0.02, type: 1 } } })).toEqual(['head', 'text walks']);
  });

  it('reads an arm of tags along open_gig_tags when its tags are common enough and the filters let it stop early', () => {
    const tagArms = (tags: Record<string, number>, input: Partial<Parameters<typeof candidateArms>[0]> = {}) =>
      arms({ websearch: null, requestedSkills: [Object.keys(tags)], shares: { ...shares, tags: new Map(Object.entries(tags)) }, ...input });
    // 1,800 gigs without filters: 300 entries per tag, where the GIN index reads all 1,800 rows.
    expect(tagArms({ 'react-native': 0.0175, rn: 0.0005 })).toEqual(['tags tag-rows']);
    // 100 gigs and a filter one in fifty pass: the whole range with a lookup each, dearer than the bitmap's 100 rows.
    expect(
      tagArms(
        { okapi: 0.001 },
        {
          filters: { ...NO_FILTERS, currency: 'EUR' },
          shares: { ...shares, tags: new Map([['okapi', 0.001]]), filters: { all: 0.02, indexed: 1, type: 1 } },
        },
      ),
    ).toEqual(['tags']);
    // Without the filter, those 100 index entries are cheapest.
    expect(tagArms({ okapi: 0.001 })).toEqual(['tags tag-rows']);
    // A third of the gigs, half passing a filter: 600 entries with a lookup each cost more than the walk's 2,000 entries.
    expect(
      tagArms(
        { python: 0.3 },
        {
          filters: { ...NO_FILTERS, currency: 'EUR' },
          shares: { ...shares, tags: new Map([['python', 0.3]]), filters: { all: 0.5, indexed: 1, type: 1 } },
        },
      ),
    ).toEqual(['tags walks']);
    // Measured at 100,000 gigs (docs/search.md): python (9.6%) among hourly gigs (42%) walks (2.6 ms; along
    // open_gig_tags with a lookup each 7.0 ms, through the GIN index 12.9 ms).
    const hourly = { ...shares, tags: new Map([['python', 0.0964]]), filters: { all: 0.418, indexed: 0.418, type: 0.418 } };
    expect(tagArms({ python: 0.0964 }, { filters: { ...NO_FILTERS, compensationType: 'hourly' }, shares: hourly })).toEqual(['tags walks']);
    // A later page tests created_at: a lookup each, as with a filter.
    expect(
      tagArms(
        { okapi: 0.001 },
        {
          createdBefore: cutoffMicros,
          shares: { ...shares, tags: new Map([['okapi', 0.001]]), filters: { all: 0.02, indexed: 1, type: 1 } },
        },
      ),
    ).toEqual(['tags']);
  });
});
