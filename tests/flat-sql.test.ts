// flatSql (db/sql.ts): a nested Drizzle statement as one level of text and values, which Drizzle
// then builds with far less garbage. The statement Drizzle builds from it must be the one it
// builds from the nested form, text and parameters, for hand-made trees and for discovery's own
// statements; a tree holding anything but sql, sql.raw, sql.join and plain values is left alone.
// db/sql.ts's own `sql` tag (string chunks made once per template) builds what Drizzle's builds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { gigs } from '../db/schema.ts';
import { sql as cachedSql, flatSql, rowsOf, sqlLiteral, textArray } from '../db/sql.ts';
import { newId } from '../src/ids.ts';
import { planSearch, type SearchRequest } from '../src/search/service.ts';
import { rankedRowOf, searchGigRows, searchSql } from '../src/search/ranking-sql.ts';

const dialect = new PgDialect();
const built = (query: SQL) => {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params };
};

describe('flatSql', () => {
  it('gives the statement the nested form gives, text and parameters in order', () => {
    const when = new Date('2026-11-26T12:00:00Z');
    const inner = sql`g.tags && ${textArray(['rust', 'go'])} and g.pay >= ${2500}::int`;
    const cases: SQL[] = [
      sql`select 1`,
      sql``,
      sql`select ${'a'}, ${1.5}, ${true}, ${null}, ${10n}, ${when}`,
      sql`with x as (${sql`select * from t where ${inner}`}) select ${sql.raw('col')} from x where ${and(inner, sql`b = ${'c'}`)}`,
      sql`${sql.join([sql`${1}`, sql`${2}`, sql.raw('3')], sql`, `)} ${undefined} end`,
      sql`${sql`${sql`${sql`deep ${'value'}`}`}`} and ${'after'}`,
    ];
    for (const query of cases) {
      const flat = flatSql(query);
      expect(built(flat)).toEqual(built(query));
      // One level: no nested statement is left.
      expect(flat.queryChunks.some((c) => c instanceof Object && 'queryChunks' in c)).toBe(false);
    }
  });

  it("builds with db/sql.ts's tag the statement Drizzle's tag builds, at every use of a template", () => {
    const when = new Date('2026-11-26T12:00:00Z');
    // The same template (one call site) with other values each time: its chunks are shared.
    const pair = (tag: typeof sql, a: unknown, b: unknown) => tag`x = ${a} and y = ${b}`;
    const nested = (tag: typeof sql, v: string) =>
      tag`with x as (${tag`select * from t where ${pair(tag, v, 2)}`}) select ${tag.raw('col')} from x where ${and(tag`a = ${v}`, tag`b`)}`;
    const built2 = (make: (tag: typeof sql) => SQL) => {
      const ours = make(cachedSql as unknown as typeof sql);
      expect(built(ours)).toEqual(built(make(sql)));
      expect(built(flatSql(ours))).toEqual(built(make(sql)));
      return built(ours);
    };
    expect(built2((tag) => pair(tag, 'a', 1))).toEqual({ text: 'x = $1 and y = $2', params: ['a', 1] });
    expect(built2((tag) => pair(tag, when, null))).toEqual({ text: 'x = $1 and y = $2', params: [when, null] });
    expect(built2((tag) => nested(tag, 'v')).params).toEqual(['v', 2, 'v']);
    expect(built2((tag) => nested(tag, 'w')).params).toEqual(['w', 2, 'w']);
    built2((tag) => tag``);
    built2((tag) => tag`${1}`);
    built2((tag) => tag`only text`);
    built2((tag) => tag.join([tag`${1}`, tag`${2}`, tag.raw('3')], tag`, `));
    // sql.raw and sql.join are db/sql.ts's own too (chunks appended, no is() per chunk).
    built2((tag) => tag.join([], tag`, `));
    built2((tag) => tag.join([tag`a`, 'b', tag.raw(''), tag.raw(' c ')]));
    built2((tag) => tag`(${tag.join([tag`x = ${1}`, tag`y = ${'z'}`], tag` or `)}) and ${tag.raw('true')}`);
    expect(cachedSql``.queryChunks).toEqual([]);
  });

  it('writes values as literals when asked, and keeps parameters when one has no literal', () => {
    const query = sql`select ${"it's"}, ${-2}::int, ${1.5}, ${null}, ${true}, ${10n}, ${textArray(['a', "b'c"])}`;
    expect(built(flatSql(query, { inline: true }))).toEqual({
      text: "select 'it''s', (-2)::int, 1.5, null, true, 10, ARRAY['a', 'b''c']::text[]",
      params: [],
    });
    for (const value of [new Date(), Number.NaN, Number.POSITIVE_INFINITY]) {
      const withIt = sql`select ${value}, ${'x'}`;
      expect(built(flatSql(withIt, { inline: true }))).toEqual(built(withIt));
    }
    expect([sqlLiteral(0), sqlLiteral(-0.25), sqlLiteral(-3n), sqlLiteral(false), sqlLiteral({})]).toEqual([
      '0',
      '(-0.25)',
      '(-3)',
      'false',
      undefined,
    ]);
  });

  it('writes a list of values as one parameter each', () => {
    expect(built(sql`select ${textArray(['rust', 'go', 'c'])}`)).toEqual({
      text: 'select ARRAY[$1, $2, $3]::text[]',
      params: ['rust', 'go', 'c'],
    });
    expect(built(sql`select ${textArray(['rust'])}`)).toEqual({ text: 'select ARRAY[$1]::text[]', params: ['rust'] });
    expect(built(sql`select ${textArray([])}`)).toEqual({ text: "select '{}'::text[]", params: [] });
  });

  it('leaves a statement alone when it holds a column, an array, a placeholder or an encoded parameter', () => {
    const cases: SQL[] = [
      sql`select ${gigs.id} from gigs`,
      sql`select * from gigs where id in ${['a', 'b']}`,
      sql`select * from gigs where id = ${sql.placeholder('id')}`,
      and(eq(gigs.title, 'x'), sql`true`)!,
    ];
    for (const query of cases) {
      expect(flatSql(query)).toBe(query);
      expect(built(flatSql(query))).toEqual(built(query));
    }
  });
});

describe("flatSql on discovery's statements", () => {
  let server: TestServer;
  let userId: string;

  beforeAll(async () => {
    server = await startTestServer();
    userId = (await server.user('Searcher')).userId;
    const tags = [['rust', 'wasm'], ['python', 'django'], ['react-native'], []];
    await server.db.insert(gigs).values(
      Array.from({ length: 12 }, (_, i) => ({
        id: newId(),
        clientUserId: null,
        title: `Gig ${i} for a python developer`,
        description: 'Build a data pipeline on aws.',
        tags: tags[i % 4]!,
        compensationType: (['fixed', 'hourly', 'bounty'] as const)[i % 3],
        currency: 'USD',
        rateCents: 5000 + i * 500,
        status: 'open' as const,
        source: 'remoteok',
        externalId: `flat-${i}`,
        postedAt: new Date(Date.now() - i * 86_400_000),
      })),
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  const requests: SearchRequest[] = [
    { limit: 20 },
    { limit: 20, compensationType: 'hourly' },
    { limit: 20, tags: ['python', 'django'] },
    { limit: 20, minCompensationCents: 6000, currency: 'USD', sources: ['remoteok', 'weworkremotely'] },
    { limit: 20, q: 'python developer', minCompensationCents: 8000, compensationType: 'hourly' },
    { limit: 20, q: 'need someone to set up kubernetes autoscaling on aws' },
    { limit: 10, q: 'rust', tags: ['rust'], compensationType: 'bounty' },
    { limit: 20, q: 'the of and' },
  ];

  it('builds the same text and parameters for every shape of search', async () => {
    const ctx = { db: server.db, config: { embeddings: undefined } };
    for (const request of requests) {
      const { plan } = await planSearch(ctx, userId, request);
      for (const query of [searchSql(plan), searchSql(plan, [newId(), newId()])]) {
        const flat = flatSql(query);
        expect(flat).not.toBe(query);
        expect(built(flat)).toEqual(built(query));
      }
    }
  });

  it('reads back every string as it was when it is written as a literal, however it is quoted', async () => {
    const strings = [
      "it's",
      "''",
      "'; drop table gigs; --",
      "back\\slash \\' and \\n",
      '$$ dollar $tag$',
      '-- not a comment',
      '/* nor this */',
      'émoji ✓ 🎉 and “quotes”',
      '',
    ];
    const numbers = [0, -1, -0.5, 1e-7, 2 ** 53, -123456.789];
    // Each column named by its place (c00, c01, ...), so that they come back in order.
    const columns = [...strings.map((s) => sql`${s}::text`), ...numbers.map((n) => sql`2 - ${n}::float8`)];
    const query = sql`select ${sql.join(
      columns.map((c, i) => sql`${c} as ${sql.raw(`c${String(i).padStart(2, '0')}`)}`),
      sql`, `,
    )}`;
    const inlined = flatSql(query, { inline: true });
    expect(built(inlined).params).toEqual([]);
    const [row] = await rowsOf<Record<string, unknown>>(server.db, inlined);
    const [parameterized] = await rowsOf<Record<string, unknown>>(server.db, query);
    expect(Object.values(row!)).toEqual([...strings, ...numbers.map((n) => 2 - n)]);
    expect(row).toEqual(parameterized);
    expect(await server.db.$count(gigs)).toBe(12);
    // What makes doubling quotes the whole of quoting (db/client.ts sets it on a server's connections).
    const [setting] = await rowsOf<{ on: string }>(server.db, sql`select current_setting('standard_conforming_strings') as on`);
    expect(setting!.on).toBe('on');
  });

  it('ranks the same pages with the values written as literals as with them as parameters', async () => {
    const ctx = { db: server.db, config: { embeddings: undefined } };
    for (const request of [...requests, { limit: 20, q: "o'reilly -- it's" }]) {
      const { plan } = await planSearch(ctx, userId, request);
      const inlined = flatSql(searchSql(plan), { inline: true });
      expect(built(inlined).params).toEqual([]);
      const page = (query: SQL) =>
        rowsOf<{ r: unknown[] }>(server.db, query).then((rows) => rows.map(rankedRowOf).map(({ ranked_at, ...r }) => r));
      expect(await page(inlined)).toEqual(await page(flatSql(searchSql(plan))));
    }
  });

  it('reads each page row (one JSON array) into the fields of a ranked gig, with their types', async () => {
    const ctx = { db: server.db, config: { embeddings: undefined } };
    const { plan } = await planSearch(ctx, userId, { limit: 5, q: 'python developer', compensationType: 'hourly' });
    const rows = await searchGigRows(server.db, plan);
    expect(rows.length).toBeGreaterThan(0);
    const [first] = rows;
    // Every field of RankedRow, each from its place in the array.
    expect(Object.keys(first!)).toHaveLength(26);
    expect(first).toMatchObject({
      title: expect.stringMatching(/^Gig \d+ for a python developer$/),
      compensation_type: 'hourly',
      rate_cents: expect.any(Number),
      compensation_min_cents: null,
      currency: 'USD',
      tags: expect.any(Array),
      status: 'open',
      source: 'remoteok',
      posted_epoch: expect.any(Number),
      signal: null,
      lexical_rank: expect.any(Number),
      freshness: expect.any(Number),
      semantic: null,
      score: expect.any(Number),
      title_hits: ['python', 'developer'],
      // Microseconds as text: exact where a JSON number would round.
      ranked_at: expect.stringMatching(/^\d{16}$/),
    });
    // Without text (freshness-ordered): no time of ranking.
    const { plan: newest } = await planSearch(ctx, userId, { limit: 5 });
    const [row] = await searchGigRows(server.db, newest);
    expect(row!.ranked_at).toBeUndefined();
    expect(row!.title_hits).toEqual([]);
  });
});
