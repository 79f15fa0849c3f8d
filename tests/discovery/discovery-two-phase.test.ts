// Discovery's two-phase retrieval (src/search/candidates-sql.ts) on a corpus larger than its arms:
// the candidates are each arm's newest matches, pages through them neither repeat nor skip (even
// when gigs are created between pages), and the stored search_head follows the gig's title.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { gigs } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';
import { CANDIDATES } from '../../src/search/candidates-sql.ts';
import { rowsOf } from '../../db/sql.ts';

const server = testFileServer();
let worker: User;

const DAY = 86_400_000;
/** More matches than all the arms together take. */
const MATCHES = CANDIDATES.head + CANDIDATES.body + 300;

async function insertZebras(count: number, daysAgo: (i: number) => number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const rows = Array.from({ length: Math.min(100, count - start) }, (_, k) => {
      const i = start + k;
      const id = newId();
      ids.push(id);
      // Half match in the title, half only in the description.
      const inTitle = i % 2 === 0;
      return {
        id,
        clientUserId: null,
        title: inTitle ? `Zebra tracker ${label} ${i}` : `Savanna survey ${label} ${i}`,
        description: inTitle ? 'Field work.' : 'We count every zebra we see.',
        status: 'open' as const,
        source: 'remoteok',
        externalId: `${label}-${i}`,
        postedAt: new Date(Date.now() - daysAgo(i) * DAY),
      };
    });
    await server.db.insert(gigs).values(rows);
  }
  return ids;
}

async function page(query: Record<string, string | number>) {
  const res = await worker.api.GET('/api/discovery/gigs', { params: { query: query as never } });
  expect(res.response.status).toBe(200);
  return res.data!;
}

async function all(query: Record<string, string | number>, limit: number, between?: () => Promise<void>) {
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const body = await page({ ...query, limit, ...(cursor ? { cursor } : {}) });
    seen.push(...body.data.map((g) => g.id));
    cursor = body.next_cursor ?? undefined;
    if (pages++ === 0 && between) await between();
  } while (cursor);
  return seen;
}

beforeAll(async () => {
  worker = await server.user('Worker');
  // Posted over 60 days, in no particular order.
  await insertZebras(MATCHES, (i) => (i * 7919) % 60, 'old');
});

describe('two-phase discovery search', () => {
  it("ranks each arm's newest matches, best first, and pages through them without gaps or repeats", async () => {
    const ranked = await all({ q: 'zebra' }, 100);
    expect(new Set(ranked).size).toBe(ranked.length);
    // Bounded: not every match is a candidate.
    expect(ranked.length).toBeGreaterThanOrEqual(CANDIDATES.head);
    expect(ranked.length).toBeLessThan(MATCHES);
    // The same list in pages of 7.
    expect(await all({ q: 'zebra' }, 7)).toEqual(ranked);
    // The best is a title match posted today (the newest title matches are all candidates).
    const first = (await page({ q: 'zebra', limit: 1 })).data[0]!;
    expect(first.title).toMatch(/^Zebra tracker/);
    expect(first.match_reasons.join(' ')).toContain('title matches');
  });

  it('keeps the pages of a search put when newer matches are created between them', async () => {
    const before = await all({ q: 'zebra' }, 25);
    let created: string[] = [];
    // Fewer than the smallest arm takes (a word anywhere), so that a new search ranks them all.
    const fresh = CANDIDATES.body - 10;
    const during = await all({ q: 'zebra' }, 25, async () => {
      // Newer than every candidate: they would push the oldest candidates out of each arm.
      created = await insertZebras(fresh, () => 0, 'new');
    });
    expect(during).toEqual(before);
    // A new search sees them.
    const after = await all({ q: 'zebra' }, 100);
    expect(after.filter((id) => created.includes(id)).length).toBe(fresh);
  });

  it('keeps search_head, the title and tags the first phase reads, right when a gig changes', async () => {
    const client = await server.user('Client');
    const res = await client.api.POST('/api/gigs', { body: { title: 'Alpaca shearing', tags: ['farming'] } as never });
    expect(res.response.status).toBe(201);
    const id = res.data!.id;
    const head = async () =>
      (await rowsOf<{ head: string }>(server.db, sql`select search_head::text as head from gigs where id = ${id}::uuid`))[0]!.head;
    expect(await head()).toContain("'alpaca':1A");
    expect(await head()).toMatch(/'farm':\S*B/);
    const patched = await client.api.PATCH('/api/gigs/{id}', {
      params: { path: { id } },
      body: { title: 'Quokka photography', tags: ['photography'] } as never,
    });
    expect(patched.response.status).toBe(200);
    expect(await head()).not.toContain('alpaca');
    expect(await head()).toContain("'quokka':1A");
    expect(await head()).toMatch(/'photographi':\S*B/);
    const found = await page({ q: 'quokka', limit: 5 });
    expect(found.data.map((g) => g.id)).toEqual([id]);
  });
});
