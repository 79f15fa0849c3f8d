// Semantic ranking against a local OpenAI-compatible embeddings endpoint (tests/fakes/embeddings.ts):
// gig embeddings computed by the job on create and update, query embeddings cached, pgvector's
// HNSW index on PGlite and an exact scan on a server without pgvector, and results without the
// semantic component (said so) when the endpoint fails, times out or answers without end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { FLOOD_BYTES, startFakeEmbeddings, type FakeEmbeddings } from '../fakes/embeddings.ts';
import { gigEmbeddings } from '../../db/schema.ts';
import { rowsOf } from '../../src/search/ranking-sql.ts';

let server: TestServer;
let fake: FakeEmbeddings;
let client: User;
let worker: User;
const ids: Record<string, string> = {};

async function embeddingOf(gigId: string) {
  const [row] = await server.db.select().from(gigEmbeddings).where(eq(gigEmbeddings.gigId, gigId));
  return row;
}

/** The job runs in the background: wait until it has stored what we expect. */
async function waitFor<T>(what: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  fake = await startFakeEmbeddings({ dims: 256 });
  server = await startTestServer(fake.env);
  [client, worker] = await server.users('Client', 'Worker');
  const create = async (key: string, body: Record<string, unknown>) => {
    const res = await client.api.POST('/api/gigs', { body: body as never });
    expect(res.response.status).toBe(201);
    ids[key] = res.data!.id;
  };
  await create('scraper', {
    title: 'Write a scraper for product listings',
    description: 'Collect prices from three shops every night.',
    tags: ['python'],
  });
  await create('logo', { title: 'Logo for a bakery', description: 'A friendly logo and a brand sheet.', tags: ['logo'] });
  await create('seo', {
    title: 'Improve our Google rankings',
    description: 'Keyword research and on-page fixes for our shop.',
    tags: ['seo'],
  });
  for (const id of Object.values(ids)) await waitFor(() => embeddingOf(id));
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

async function search(query: Record<string, string | number>) {
  const res = await worker.api.GET('/api/discovery/gigs', { params: { query: query as never } });
  expect(res.response.status).toBe(200);
  return res.data!;
}

describe('semantic ranking', () => {
  it('embeds every new gig through the job, with the configured model, at unit length', async () => {
    const row = (await embeddingOf(ids.scraper!))!;
    expect(row).toMatchObject({ model: 'fake-embedding-1', dims: 256 });
    expect(Math.hypot(...row.embedding)).toBeCloseTo(1, 4);
    expect(fake.requests.every((r) => r.model === 'fake-embedding-1' && r.authorization === 'Bearer sk-fake')).toBe(true);
  });

  it('ranks with similarity in meaning, finds gigs that share no searchable word, and says so', async () => {
    // Postgres stems "scraping" to "scrape" and "scraper" to "scraper": no lexical match. The
    // fake's own stemming maps both to "scrap", so they are close in its space.
    const body = await search({ q: 'scraping' });
    expect(body.semantic).toEqual({ used: true, reason: null, model: 'fake-embedding-1' });
    const top = body.data[0]!;
    expect(top.id).toBe(ids.scraper);
    expect(top.score_components.lexical).toBe(0);
    expect(top.score_components.semantic).toBeGreaterThan(0.1);
    expect(top.score).toBeGreaterThan(body.data[1]!.score);
    expect(top.match_reasons).toContain(`similar in meaning (${top.score_components.semantic!.toFixed(2)})`);
    for (const g of body.data) expect(g.score_components.semantic).not.toBeNull();
  });

  it('caches query embeddings: the same query does not call the endpoint again', async () => {
    await search({ q: 'friendly bakery logo' });
    const calls = fake.requests.length;
    await search({ q: 'Friendly  bakery logo ' });
    expect(fake.requests.length).toBe(calls);
  });

  it('uses the HNSW index where pgvector exists, and an exact scan where it does not', async () => {
    const indexes = await rowsOf<{ indexname: string }>(
      server.db,
      sql`select indexname from pg_indexes where tablename = 'gig_embeddings'`,
    );
    const hasVector =
      (await rowsOf<{ n: number }>(server.db, sql`select count(*)::int as n from pg_extension where extname = 'vector'`))[0]!.n > 0;
    expect(indexes.some((i) => i.indexname === 'gig_embeddings_hnsw_256')).toBe(hasVector);
    if (!process.env.DATABASE_URL) expect(hasVector).toBe(true);
  });

  it('re-embeds a gig when its text changes', async () => {
    const before = (await embeddingOf(ids.logo!))!;
    await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: ids.logo! } }, body: { title: 'Logo and packaging for a bakery' } });
    const after = await waitFor(async () => {
      const row = await embeddingOf(ids.logo!);
      return row && row.contentHash !== before.contentHash ? row : undefined;
    });
    expect(after.embedding).not.toEqual(before.embedding);
  });

  it('says why semantic ranking was not used without a text query', async () => {
    const body = await search({ tags: 'logo' });
    expect(body.semantic).toEqual({ used: false, reason: 'no text query to compare', model: 'fake-embedding-1' });
    expect(body.data.map((g) => g.id)).toEqual([ids.logo]);
  });

  it('still answers, without the semantic component, when the endpoint fails or times out', async () => {
    try {
      fake.fail('error');
      const failed = await search({ q: 'google rankings for my shop' });
      expect(failed.semantic.used).toBe(false);
      expect(failed.semantic.reason).toMatch(/embeddings endpoint failed \(answered HTTP 500\)/);
      expect(failed.data[0]!.id).toBe(ids.seo);
      for (const g of failed.data) expect(g.score_components.semantic).toBeNull();

      fake.fail('timeout');
      const slow = await search({ q: 'rankings on google' });
      expect(slow.semantic.reason).toMatch(/no answer within 500 ms/);
      expect(slow.data[0]!.id).toBe(ids.seo);

      fake.fail('malformed');
      const nonsense = await search({ q: 'keyword research' });
      expect(nonsense.semantic.reason).toMatch(/malformed embedding/);
      expect(nonsense.data.map((g) => g.id)).toContain(ids.seo);

      // An answer that never ends is dropped at its cap, well before the time-out.
      fake.fail('flood');
      const flooded = await search({ q: 'google keyword rankings' });
      expect(flooded.semantic.reason).toMatch(/answered more than \d+ bytes/);
      expect(flooded.data.map((g) => g.id)).toContain(ids.seo);
      const flood = await fake.floods.at(-1)!;
      expect(flood.complete).toBe(false);
      expect(flood.written).toBeLessThan(FLOOD_BYTES / 8);
    } finally {
      fake.fail(null);
    }
    const back = await search({ q: 'keyword research' });
    expect(back.semantic.used).toBe(true);
  });
});
