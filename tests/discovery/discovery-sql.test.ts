// Discovery's statements (src/search/*-sql.ts) on Drizzle's own `sql` tag: every value a request
// brings (words, tags, currency, sources, the caller's id, the cursor) is a bound parameter, never
// text of the statement, and a page row reads back into the fields of a ranked gig.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { gigs } from '../../db/schema.ts';
import { textArray } from '../../db/sql.ts';
import { newId } from '../../src/ids.ts';
import { planSearch, type SearchRequest } from '../../src/search/service.ts';
import { searchGigRows } from '../../src/search/ranking-sql.ts';

const dialect = new PgDialect();
const built = (query: SQL) => {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, params };
};

describe('textArray', () => {
  it('writes a list of values as one parameter each', () => {
    expect(built(sql`select ${textArray(['rust', 'go', 'c'])}`)).toEqual({
      text: 'select ARRAY[$1, $2, $3]::text[]',
      params: ['rust', 'go', 'c'],
    });
    expect(built(sql`select ${textArray(['rust'])}`)).toEqual({ text: 'select ARRAY[$1]::text[]', params: ['rust'] });
    expect(built(sql`select ${textArray([])}`)).toEqual({ text: "select '{}'::text[]", params: [] });
  });
});

describe("discovery's statements", () => {
  let server: TestServer;
  let userId: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    ({ userId, apiKey } = await server.user('Searcher'));
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

  /** Values a caller may send, each odd for SQL in its own way. */
  const hostile = ["o'reilly -- it's", "'; drop table gigs; --", '$$ dollar $tag$', "back\\slash \\' and /* not a comment */"];

  it('sends every value of a request as a parameter, never as text of the statement', async () => {
    const ctx = { db: server.db, config: { embeddings: undefined } };
    // What reaches the database: each statement as Drizzle builds it for the driver.
    const sent: { text: string; params: unknown[] }[] = [];
    const spy = {
      execute: (query: SQL) => {
        sent.push(built(query));
        return server.db.execute(query);
      },
    } as unknown as typeof server.db;
    const odd = [...requests, ...hostile.map((q) => ({ limit: 20, q, tags: [q], currency: q.slice(0, 3), sources: [q] }))];
    for (const request of odd) {
      const { plan } = await planSearch(ctx, userId, request);
      sent.length = 0;
      await searchGigRows(spy, plan);
      await searchGigRows(spy, { ...plan, after: { score: 0.5, id: newId() } }, [newId()]);
      expect(sent).toHaveLength(2);
      for (const { text, params } of sent) {
        expect(params).toContain(userId);
        expect(text).not.toContain(userId);
        for (const value of [request.q, ...(request.tags ?? []), request.currency, ...(request.sources ?? [])]) {
          // A value of a few letters may be a word of SQL ('and', 'rust' in a comment): the odd ones are not.
          if (value && value.length > 8) expect(text).not.toContain(value);
        }
      }
    }
  });

  it('answers a search whose values are odd for SQL, and leaves the data alone', async () => {
    for (const q of hostile) {
      const res = await fetch(`${server.url}/api/discovery/gigs?${new URLSearchParams({ q, tags: 'python', currency: 'USD' })}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toEqual(expect.any(Array));
    }
    expect(await server.db.$count(gigs)).toBe(12);
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
