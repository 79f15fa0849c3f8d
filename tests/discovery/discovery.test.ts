// Discovery search over HTTP: filters, ranking, reasons, pagination, feedback and recommendations.
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { gigs, vouches } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';
import { DEFAULT_WEIGHTS, fuse, structuredScore } from '../../src/search/scoring.ts';

const server = testFileServer();
let client: User;
let worker: User;
let other: User;

const DAY = 86_400_000;
const ids: Record<string, string> = {};

async function nativeGig(key: string, body: Record<string, unknown>, daysAgo: number) {
  const res = await client.api.POST('/api/gigs', { body: { title: 'A gig', ...body } as never });
  expect(res.response.status).toBe(201);
  ids[key] = res.data!.id;
  await server.db
    .update(gigs)
    .set({ postedAt: new Date(Date.now() - daysAgo * DAY) })
    .where(eq(gigs.id, res.data!.id));
}

async function externalGig(key: string, values: Partial<typeof gigs.$inferInsert>, daysAgo: number) {
  const id = newId();
  ids[key] = id;
  await server.db.insert(gigs).values({
    id,
    clientUserId: null,
    title: 'External',
    status: 'open',
    source: 'remoteok',
    externalId: `ext-${key}`,
    url: `https://jobs.example.com/${key}`,
    postedAt: new Date(Date.now() - daysAgo * DAY),
    ...values,
  });
}

beforeAll(async () => {
  [client, worker, other] = await server.users('Client', 'Worker', 'Other');
  await nativeGig(
    'rustWasm',
    {
      title: 'Rust developer for a WebAssembly plugin',
      description: 'Compile our image filters to wasm.',
      tags: ['rust', 'wasm'],
      compensation_type: 'hourly',
      rate_cents: 9000,
      compensation_min_cents: 8000,
      compensation_max_cents: 9000,
    },
    2,
  );
  await nativeGig(
    'marketing',
    {
      title: 'Marketing site refresh',
      description: 'New landing pages in Webflow. Later we might port the pricing calculator to Rust.',
      tags: ['webflow', 'design'],
      compensation_type: 'fixed',
      compensation_min_cents: 200000,
      compensation_max_cents: 300000,
    },
    1,
  );
  await nativeGig(
    'logo',
    {
      title: 'Logo design for a bakery',
      description: 'A friendly logo and a small brand sheet.',
      tags: ['logo', 'branding'],
      compensation_type: 'fixed',
      compensation_min_cents: 50000,
      compensation_max_cents: 50000,
      currency: 'EUR',
    },
    10,
  );
  await nativeGig('noPay', { title: 'Help with spreadsheets', description: 'Clean up a budget workbook.', tags: ['excel'] }, 5);
  await nativeGig('draft', { title: 'Rust draft gig', tags: ['rust'], status: 'draft' }, 1);
  await nativeGig('closed', { title: 'Rust closed gig', tags: ['rust'] }, 1);
  await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: ids.closed! } }, body: { status: 'closed' } });
  await nativeGig('paused', { title: 'Rust paused gig', tags: ['rust'] }, 1);
  await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: ids.paused! } }, body: { status: 'paused' } });
  await externalGig(
    'seniorRust',
    {
      title: 'Senior Rust engineer (remote)',
      description: 'Backend services in Rust and Postgres.',
      tags: ['rust', 'backend'],
      compensationType: 'hourly',
      rateCents: 12000,
      compensationMinCents: 10000,
      compensationMaxCents: 12000,
    },
    3,
  );
  await externalGig(
    'bounty',
    {
      title: 'Fix a panic in the parser',
      description: 'The Rust parser crashes on empty input. $300 bounty.',
      tags: ['rust', 'bug'],
      source: 'github-bounties',
      compensationType: 'bounty',
      compensationMinCents: 30000,
      compensationMaxCents: 30000,
    },
    20,
  );
});

type Query = Record<string, string | number | undefined>;

async function search(user: User, query: Query) {
  const res = await user.api.GET('/api/discovery/gigs', { params: { query: query as never } });
  expect(res.response.status).toBe(200);
  return res.data!;
}

const keysOf = (data: { id: string }[]) => data.map((g) => Object.entries(ids).find(([, id]) => id === g.id)?.[0] ?? g.id);
const OPEN = ['rustWasm', 'marketing', 'logo', 'noPay', 'seniorRust', 'bounty'];

function expectInvalid(res: { response: Response; error?: unknown }, path: string) {
  expect(res.response.status).toBe(400);
  const error = (res.error as { error: { code: string; issues: { path: string }[] } }).error;
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.issues.map((i) => i.path)).toContain(path);
}

describe('GET /api/discovery/gigs: ranking and reasons', () => {
  it('finds open gigs only, ranks a title match above a passing mention, and says why', async () => {
    const body = await search(worker, { q: 'rust' });
    const keys = keysOf(body.data);
    expect(new Set(keys)).toEqual(new Set(['rustWasm', 'seniorRust', 'bounty', 'marketing']));
    expect(keys.indexOf('rustWasm')).toBeLessThan(keys.indexOf('marketing'));
    expect(keys.indexOf('seniorRust')).toBeLessThan(keys.indexOf('marketing'));
    expect(keys.at(-1)).toBe('marketing');
    const byKey = Object.fromEntries(body.data.map((g) => [keysOf([g])[0], g]));
    expect(byKey.rustWasm!.match_reasons).toContain('title matches "rust"');
    expect(byKey.rustWasm!.match_reasons).toContain('posted 2 days ago');
    expect(byKey.marketing!.match_reasons).toContain('description mentions "rust"');
    expect(byKey.bounty!.match_reasons).toEqual(expect.arrayContaining(['tags match "rust"']));
    expect(byKey.rustWasm!.match_reasons).toContain('has the requested skill: rust');
    for (const g of body.data) {
      expect(g.score).toBeGreaterThanOrEqual(0);
      expect(g.score).toBeLessThanOrEqual(1);
      expect(g.score_components.lexical).toBeGreaterThan(0);
      expect(g.score_components.semantic).toBeNull();
      expect(g.status).toBe('open');
    }
    expect(body.semantic).toEqual({ used: false, reason: 'no embeddings endpoint configured', model: null });
  });

  it('computes in SQL the score that scoring.ts defines', async () => {
    for (const query of [
      { q: 'rust' },
      { q: 'rust developer', tags: 'rust,wasm', min_compensation_cents: 8500 },
      {},
      { tags: 'logo' },
      { tags: 'rust', min_compensation_cents: 8500 },
      { min_compensation_cents: 9500 },
    ]) {
      const body = await search(worker, query);
      expect(body.data.length).toBeGreaterThan(0);
      for (const g of body.data) {
        const s = g.structured_components;
        expect(g.score_components.structured).toBeCloseTo(structuredScore(s, DEFAULT_WEIGHTS), 3);
        expect(g.score).toBeCloseTo(fuse(g.score_components, DEFAULT_WEIGHTS), 3);
      }
      const scores = body.data.map((g) => g.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
  });

  it('mixes native and external gigs; external ones carry their url', async () => {
    const body = await search(worker, { q: 'rust' });
    const sources = new Set(body.data.map((g) => g.source));
    expect(sources).toEqual(new Set(['native', 'remoteok', 'github-bounties']));
    for (const g of body.data) {
      if (g.source === 'native') expect(g).toMatchObject({ url: null, external_id: null, client_user_id: client.userId });
      else expect(g).toMatchObject({ url: expect.stringMatching(/^https:\/\/jobs\.example\.com\//), client_user_id: null });
    }
  });

  it('answers a q of only stop words or punctuation from the filters, and says so', async () => {
    for (const q of ['the of and', '!!! ??', 'looking for someone']) {
      const body = await search(worker, { q });
      expect(new Set(keysOf(body.data))).toEqual(new Set(OPEN));
      expect(body.notices.join(' ')).toMatch(/no searchable words/);
      for (const g of body.data) expect(g.score_components.lexical).toBeNull();
    }
  });

  it('finds skills named in q through their tags and synonyms', async () => {
    await externalGig('k8s', { title: 'Cluster upgrade', description: 'Move our workloads to a newer version.', tags: ['kubernetes'] }, 4);
    try {
      const body = await search(worker, { q: 'k8s' });
      expect(keysOf(body.data)).toEqual(['k8s']);
      expect(body.data[0]!.match_reasons).toEqual(
        expect.arrayContaining(['tags match "kubernetes" (for "k8s")', 'has the requested skill: kubernetes']),
      );
    } finally {
      await server.db.delete(gigs).where(eq(gigs.id, ids.k8s!));
    }
  });

  it('reads a typo of a known tag as that skill, and says so', async () => {
    const body = await search(worker, { q: 'webflw' });
    expect(keysOf(body.data)).toEqual(['marketing']);
    expect(body.notices).toContain('read "webflw" as the skill webflow');
    expect(body.data[0]!.match_reasons).toContain('has the requested skill: webflow');
  });
});

describe('GET /api/discovery/gigs: filters', () => {
  it.each([
    [{ tags: 'wasm' }, ['rustWasm']],
    [{ tags: 'rust,logo' }, ['rustWasm', 'seniorRust', 'bounty', 'logo']],
    [{ min_compensation_cents: 10000 }, ['marketing', 'logo', 'seniorRust', 'bounty']],
    [{ min_compensation_cents: 9000 }, ['rustWasm', 'marketing', 'logo', 'seniorRust', 'bounty']],
    [{ compensation_type: 'bounty' }, ['bounty']],
    [{ compensation_type: 'unknown' }, ['noPay']],
    [{ currency: 'EUR' }, ['logo']],
    [{ sources: 'remoteok,github-bounties' }, ['seniorRust', 'bounty']],
    [{ sources: 'native' }, ['rustWasm', 'marketing', 'logo', 'noPay']],
    [{ q: 'rust', sources: 'native' }, ['rustWasm', 'marketing']],
    [{ q: 'rust', compensation_type: 'hourly', min_compensation_cents: 10000 }, ['seniorRust']],
    [{}, OPEN],
  ])('%j narrows to exactly the gigs that pass', async (query, expected) => {
    const body = await search(worker, query as Query);
    expect(new Set(keysOf(body.data))).toEqual(new Set(expected));
  });

  it('takes tags and sources comma-separated (style form, explode false), or as the parameter repeated', async () => {
    for (const [query, expected] of [
      ['tags=rust,logo', ['rustWasm', 'seniorRust', 'bounty', 'logo']],
      ['tags=rust&tags=logo', ['rustWasm', 'seniorRust', 'bounty', 'logo']],
      ['sources=remoteok,github-bounties', ['seniorRust', 'bounty']],
      ['sources=remoteok&sources=github-bounties', ['seniorRust', 'bounty']],
    ] as const) {
      const res = await fetch(`${server.url}/api/discovery/gigs?${query}`, { headers: { authorization: `Bearer ${worker.apiKey}` } });
      expect(res.status, query).toBe(200);
      expect(new Set(keysOf(((await res.json()) as { data: { id: string }[] }).data)), query).toEqual(new Set(expected));
    }
  });

  it('explains how the pay meets the minimum and which requested skills a gig covers', async () => {
    const body = await search(worker, { tags: 'rust,wasm,go', min_compensation_cents: 8500 });
    const byKey = Object.fromEntries(body.data.map((g) => [keysOf([g])[0], g]));
    expect(byKey.rustWasm!.match_reasons).toEqual(
      expect.arrayContaining(['2 of 3 requested skills: rust, wasm', 'pays up to $90/h, at least $85/h asked']),
    );
    expect(byKey.seniorRust!.match_reasons).toEqual(expect.arrayContaining(['1 of 3 requested skills: rust', 'pays at least $85/h']));
    expect(keysOf(body.data)[0]).toBe('rustWasm');
  });

  it('gives 400 naming each invalid parameter', async () => {
    const cases: [Query, string][] = [
      [{ q: 'x'.repeat(1001) }, 'query.q'],
      [{ limit: 0 }, 'query.limit'],
      [{ limit: 101 }, 'query.limit'],
      [{ limit: 'ten' }, 'query.limit'],
      [{ min_compensation_cents: -1 }, 'query.min_compensation_cents'],
      [{ min_compensation_cents: 1.5 }, 'query.min_compensation_cents'],
      [{ min_compensation_cents: 'lots' }, 'query.min_compensation_cents'],
      [{ compensation_type: 'weekly' }, 'query.compensation_type'],
      [{ currency: 'usd' }, 'query.currency'],
      [{ currency: 'EURO' }, 'query.currency'],
      [{ cursor: 'not-a-cursor' }, 'query.cursor'],
      [{ min_compensation_cents: 2_147_483_648 }, 'query.min_compensation_cents'],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`).join(',') }, 'query.tags'],
      [{ tags: `rust,${'x'.repeat(41)}` }, 'query.tags[1]'],
      [{ tags: 'rust,,wasm' }, 'query.tags[1]'],
      [{ tags: 'x,'.repeat(500) }, 'query.tags'],
      [{ sources: Array.from({ length: 21 }, (_, i) => `s${i}`).join(',') }, 'query.sources'],
      [{ sources: 'x'.repeat(41) }, 'query.sources[0]'],
      [{ sources: 'Native' }, 'query.sources[0]'],
    ];
    for (const [query, path] of cases) {
      expectInvalid(await worker.api.GET('/api/discovery/gigs', { params: { query: query as never } }), path);
    }
    expect((await worker.api.GET('/api/discovery/gigs', { params: { query: { q: 'x'.repeat(1000) } } })).response.status).toBe(200);
    const twenty = Array.from({ length: 20 }, (_, i) => `${'t'.repeat(38)}${String(i).padStart(2, '0')}`);
    expect((await worker.api.GET('/api/discovery/gigs', { params: { query: { tags: twenty } } })).response.status).toBe(200);
  });

  it('needs credentials', async () => {
    const res = await server.anonymous.GET('/api/discovery/gigs', { params: { query: { q: 'rust' } } });
    expect(res.response.status).toBe(401);
  });
});

describe('GET /api/discovery/gigs: pagination', () => {
  it('pages through ranked results with the cursor, without gaps or repeats', async () => {
    for (const query of [
      { q: 'rust' },
      {},
      { tags: 'rust,logo,webflow' },
      { min_compensation_cents: 8500 },
      { tags: 'rust', min_compensation_cents: 8500 },
      { tags: 'rust' },
    ]) {
      const all = keysOf((await search(worker, { ...query, limit: 100 })).data);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const body = await search(worker, { ...query, limit: 2, ...(cursor ? { cursor } : {}) });
        expect(body.data.length).toBeLessThanOrEqual(2);
        seen.push(...keysOf(body.data));
        cursor = body.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(all);
    }
  });

  it('refuses a cursor from another query', async () => {
    const first = await search(worker, { q: 'rust', limit: 1 });
    expect(first.next_cursor).toBeTruthy();
    const res = await worker.api.GET('/api/discovery/gigs', { params: { query: { q: 'logo', cursor: first.next_cursor! } } });
    expectInvalid(res, 'query.cursor');
  });
});

describe('POST /api/discovery/feedback', () => {
  it("changes that user's later results: hide removes, up lifts, down lowers, clear undoes", async () => {
    const before = await search(worker, { q: 'rust' });
    const scoreOf = (body: typeof before, key: string) => body.data.find((g) => g.id === ids[key])?.score;
    const send = (gigId: string, signal: 'up' | 'down' | 'hide' | 'clear') =>
      worker.api.POST('/api/discovery/feedback', { body: { gig_id: gigId, signal, context: 'search' } });

    const hidden = await send(ids.bounty!, 'hide');
    expect(hidden.response.status).toBe(200);
    expect(hidden.data).toMatchObject({ gig_id: ids.bounty, signal: 'hide', context: 'search' });
    const up = await send(ids.marketing!, 'up');
    expect(up.data!.signal).toBe('up');
    await send(ids.rustWasm!, 'down');

    const after = await search(worker, { q: 'rust' });
    expect(keysOf(after.data)).not.toContain('bounty');
    expect(scoreOf(after, 'marketing')!).toBeGreaterThan(scoreOf(before, 'marketing')!);
    expect(scoreOf(after, 'rustWasm')!).toBeLessThan(scoreOf(before, 'rustWasm')!);
    const marketing = after.data.find((g) => g.id === ids.marketing)!;
    expect(marketing.match_reasons).toContain('you marked this as relevant');
    expect(marketing.feedback).toBe('up');
    expect(after.data.find((g) => g.id === ids.rustWasm)!.match_reasons).toContain('you marked this as not relevant, so it ranks lower');
    expect(keysOf(after.data).indexOf('marketing')).toBeLessThan(keysOf(after.data).indexOf('rustWasm'));
    expect(keysOf((await search(worker, {})).data)).not.toContain('bounty');

    // Another user's results do not change.
    expect(keysOf((await search(other, { q: 'rust' })).data)).toEqual(keysOf(before.data));

    // The latest signal wins; clear takes it back.
    expect((await send(ids.marketing!, 'up')).response.status).toBe(200);
    for (const key of ['bounty', 'marketing', 'rustWasm']) {
      const cleared = await send(ids[key]!, 'clear');
      expect(cleared.data).toMatchObject({ gig_id: ids[key], signal: null, context: null });
    }
    const restored = await search(worker, { q: 'rust' });
    expect(restored.data.map((g) => g.id)).toEqual(before.data.map((g) => g.id));
    restored.data.forEach((g, i) => expect(g.score).toBeCloseTo(before.data[i]!.score, 3));
  });

  // The caller's gigs with feedback are candidates whatever their age (not only through the
  // indexes of open gigs), so the ranking itself must leave out those no longer open.
  it('leaves out a gig the caller gave feedback on once it is no longer open', async () => {
    await nativeGig('upThenPaused', { title: 'Rust gig with feedback', tags: ['rust'] }, 2);
    const send = (signal: 'up' | 'clear') =>
      worker.api.POST('/api/discovery/feedback', { body: { gig_id: ids.upThenPaused!, signal, context: 'search' } });
    expect((await send('up')).response.status).toBe(200);
    expect(keysOf((await search(worker, { q: 'rust' })).data)).toContain('upThenPaused');
    const paused = await client.api.PATCH('/api/gigs/{id}', { params: { path: { id: ids.upThenPaused! } }, body: { status: 'paused' } });
    expect(paused.response.status).toBe(200);
    for (const query of [{ q: 'rust' }, { tags: 'rust' }, {}])
      expect(keysOf((await search(worker, query)).data)).not.toContain('upThenPaused');
    expect((await send('clear')).response.status).toBe(200);
  });

  it('refuses a gig the caller cannot see, and invalid bodies', async () => {
    const unknown = await worker.api.POST('/api/discovery/feedback', { body: { gig_id: newId(), signal: 'up' } });
    expect(unknown.response.status).toBe(404);
    const draft = await worker.api.POST('/api/discovery/feedback', { body: { gig_id: ids.draft!, signal: 'hide' } });
    expect(draft.response.status).toBe(404);
    expectInvalid(
      await worker.api.POST('/api/discovery/feedback', { body: { gig_id: ids.logo!, signal: 'love' } as never }),
      'body.signal',
    );
    expectInvalid(
      await worker.api.POST('/api/discovery/feedback', { body: { gig_id: ids.logo!, signal: 'up', context: 'email' } as never }),
      'body.context',
    );
    expectInvalid(await worker.api.POST('/api/discovery/feedback', { body: { signal: 'up' } as never }), 'body.gig_id');
    expectInvalid(await worker.api.POST('/api/discovery/feedback', { body: { gig_id: 'nope', signal: 'up' } as never }), 'body.gig_id');
    const anonymous = await server.anonymous.POST('/api/discovery/feedback', { body: { gig_id: ids.logo!, signal: 'up' } });
    expect(anonymous.response.status).toBe(401);
  });
});

describe('GET /api/discovery/recommendations/gigs', () => {
  it('recommends gigs from profile skills and history, without own, applied or hidden gigs', async () => {
    const fresh = await server.user('Newcomer');
    const empty = await fresh.api.GET('/api/discovery/recommendations/gigs', {});
    expect(empty.data).toMatchObject({ data: [], next_cursor: null });
    expect(empty.data!.notices.join(' ')).toMatch(/add skills/);

    await fresh.api.PATCH('/api/profile/me', { body: { skills: ['Rust', 'WASM'] } });
    const res = await fresh.api.GET('/api/discovery/recommendations/gigs', {});
    expect(res.response.status).toBe(200);
    const keys = keysOf(res.data!.data);
    expect(new Set(keys)).toEqual(new Set(['rustWasm', 'seniorRust', 'bounty']));
    expect(keys[0]).toBe('rustWasm');
    expect(res.data!.data[0]!.match_reasons).toContain('matches 2 of your skills: rust, wasm');

    // Applying takes the gig out and puts its tags into the history.
    expect((await fresh.api.POST('/api/gigs/{id}/applications', { params: { path: { id: ids.logo! } }, body: {} })).response.status).toBe(
      201,
    );
    await fresh.api.POST('/api/discovery/feedback', { body: { gig_id: ids.bounty!, signal: 'hide', context: 'recommendation' } });
    const later = await fresh.api.GET('/api/discovery/recommendations/gigs', {});
    expect(new Set(keysOf(later.data!.data))).toEqual(new Set(['rustWasm', 'seniorRust']));
    expect(later.data!.data.every((g) => g.score_components.history !== null)).toBe(true);

    // A client is not recommended their own gigs.
    await client.api.PATCH('/api/profile/me', { body: { skills: ['rust'] } });
    const own = await client.api.GET('/api/discovery/recommendations/gigs', {});
    expect(keysOf(own.data!.data)).toEqual(['seniorRust', 'bounty']);

    const paged = await fresh.api.GET('/api/discovery/recommendations/gigs', { params: { query: { limit: 1 } } });
    const next = await fresh.api.GET('/api/discovery/recommendations/gigs', {
      params: { query: { limit: 1, cursor: paged.data!.next_cursor! } },
    });
    expect([...keysOf(paged.data!.data), ...keysOf(next.data!.data)]).toEqual(keysOf(later.data!.data));
    expect((await server.anonymous.GET('/api/discovery/recommendations/gigs', {})).response.status).toBe(401);
    expectInvalid(await fresh.api.GET('/api/discovery/recommendations/gigs', { params: { query: { limit: 0 } } }), 'query.limit');
  });
});

describe('GET /api/discovery/recommendations/workers', () => {
  it("recommends workers by skills and vouches to the gig's client only", async () => {
    const [ada, bob, cat] = await server.users('Ada', 'Bob', 'Cat');
    await ada.api.PATCH('/api/profile/me', { body: { skills: ['rust', 'wasm'] } });
    await bob.api.PATCH('/api/profile/me', { body: { skills: ['rust'] } });
    await cat.api.PATCH('/api/profile/me', { body: { skills: ['logo'] } });
    await server.db.insert(vouches).values([
      { voucherUserId: cat.userId, vouchedUserId: bob.userId },
      { voucherUserId: ada.userId, vouchedUserId: bob.userId },
    ]);

    const res = await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: ids.rustWasm! } } });
    expect(res.response.status).toBe(200);
    const names = res.data!.data.map((w) => w.display_name);
    expect(names).toContain('Ada');
    expect(names).toContain('Bob');
    expect(names).not.toContain('Cat');
    expect(names).not.toContain('Client');
    const adaRow = res.data!.data.find((w) => w.display_name === 'Ada')!;
    const bobRow = res.data!.data.find((w) => w.display_name === 'Bob')!;
    expect(adaRow.match_reasons).toContain("has 2 of the gig's 2 skills: rust, wasm");
    expect(bobRow).toMatchObject({ vouch_count: 2, score_components: { skills: 0.5, reviews: null } });
    expect(bobRow.match_reasons).toContain('vouched for by 2 people');
    expect(adaRow.score).toBeGreaterThan(bobRow.score);

    expect(
      (await worker.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: ids.rustWasm! } } })).response.status,
    ).toBe(403);
    expect(
      (await worker.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: ids.draft! } } })).response.status,
    ).toBe(404);
    expect(
      (await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: newId() } } })).response.status,
    ).toBe(404);
    expect(
      (await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: ids.seniorRust! } } })).response.status,
    ).toBe(403);
    expectInvalid(await client.api.GET('/api/discovery/recommendations/workers', { params: { query: {} as never } }), 'query.gig_id');
    expectInvalid(await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: 'x' } } }), 'query.gig_id');
    expect(
      (await server.anonymous.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: ids.rustWasm! } } })).response
        .status,
    ).toBe(401);
  });
});
