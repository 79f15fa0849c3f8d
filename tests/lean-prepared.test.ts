// Prepared reads run without Drizzle's execution layer on a server Postgres (db/lean-prepared.ts):
// the same rows as Drizzle's own execute, value for value (dates, arrays, bigints, nulls,
// aggregates), placeholders filled through their columns' encoders (a write with returning);
// shapes it does not handle (nested selections, PGlite's queries) are left to Drizzle.
import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leanPrepared } from '../db/lean-prepared.ts';
import { insertGig } from '../db/repositories/gigs.ts';
import { gigs, users } from '../db/schema.ts';
import { newId } from '../src/ids.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const onPostgres = Boolean(process.env.DATABASE_URL);
let server: TestServer;
let clientId: string;
beforeAll(async () => {
  server = await startTestServer();
  clientId = (await server.user('Lean Client')).userId;
});
afterAll(async () => {
  await server?.close();
});

const uniqueName = () => `lean_${newId().replaceAll('-', '')}`;
/** Drizzle's prepared read of a whole gig row by id. */
const gigById = () =>
  server.db
    .select()
    .from(gigs)
    .where(eq(gigs.id, sql.placeholder('id')))
    .prepare(uniqueName());

describe.skipIf(!onPostgres)('a lean prepared read on a server Postgres', () => {
  it('returns what Drizzle returns: whole rows with dates, arrays and nulls', async () => {
    const gig = await insertGig(server.db, clientId, { id: newId(), title: 'Lean gig', status: 'open', tags: ['rust', 'cli'] });
    const query = gigById();
    const lean = leanPrepared(query);
    expect(lean).toBeDefined();
    const [row] = await lean!.execute({ id: gig.id });
    expect(row).toEqual((await query.execute({ id: gig.id }))[0]);
    expect(row).toMatchObject({ id: gig.id, tags: ['rust', 'cli'], externalId: null, status: 'open' });
    expect(row!.createdAt).toBeInstanceOf(Date);
    expect(row!.createdAt.getTime()).toBe(gig.createdAt.getTime());
    // Keys in the order Drizzle makes them, so that a row logs and serialises the same way.
    expect(Object.keys(row!)).toEqual(Object.keys(gig));
  });

  it('decodes a bigint column in number mode and an aggregate mapped to a number', async () => {
    const githubId = 9_007_199_254_740_000 + Math.floor(Math.random() * 900);
    await server.db.update(users).set({ githubId }).where(eq(users.id, clientId));
    const byUser = server.db
      .select({ githubId: users.githubId, bio: users.bio, email: users.email })
      .from(users)
      .where(eq(users.id, sql.placeholder('id')))
      .prepare(uniqueName());
    const [user] = await leanPrepared(byUser)!.execute({ id: clientId });
    expect(user).toEqual({ githubId, bio: '', email: null });
    expect(user).toEqual((await byUser.execute({ id: clientId }))[0]);

    const counted = server.db
      .select({ n: count() })
      .from(gigs)
      .where(eq(gigs.clientUserId, sql.placeholder('client')))
      .prepare(uniqueName());
    const [tally] = await leanPrepared(counted)!.execute({ client: clientId });
    expect(tally).toEqual((await counted.execute({ client: clientId }))[0]);
    expect(typeof tally!.n).toBe('number');
  });

  it("fills a placeholder through its column's encoder: a Date written to a timestamp", async () => {
    const publish = server.db
      .insert(gigs)
      .values({
        id: sql.placeholder('id'),
        clientUserId: clientId,
        title: 'Posted lean gig',
        status: 'open',
        postedAt: sql.placeholder('at'),
      })
      .returning({ id: gigs.id, postedAt: gigs.postedAt })
      .prepare(uniqueName());
    const id = newId();
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(await leanPrepared(publish)!.execute({ id, at })).toEqual([{ id, postedAt: at }]);
    const [stored] = await server.db.select({ postedAt: gigs.postedAt }).from(gigs).where(eq(gigs.id, id));
    expect(stored!.postedAt).toEqual(at);
  });

  it('refuses a call without a placeholder’s value, as Drizzle does, before asking the database', async () => {
    const query = gigById();
    await expect(leanPrepared(query)!.execute({})).rejects.toThrow('No value for placeholder "id" was provided');
  });

  it('maps a selection keyed __proto__ as Drizzle does (a key an object literal would read as the prototype)', async () => {
    const gig = await insertGig(server.db, clientId, { id: newId(), title: 'Proto gig', status: 'open' });
    const odd = server.db
      .select({ ['__proto__']: gigs.title, id: gigs.id })
      .from(gigs)
      .where(eq(gigs.id, sql.placeholder('id')))
      .prepare(uniqueName());
    const [lean] = await leanPrepared(odd)!.execute({ id: gig.id });
    const [drizzle] = await odd.execute({ id: gig.id });
    expect(lean).toEqual(drizzle);
    expect(Object.keys(lean!)).toEqual(Object.keys(drizzle!));
    expect(Object.getPrototypeOf(lean)).toBe(Object.getPrototypeOf(drizzle));
  });

  it('leaves a nested selection to Drizzle', () => {
    const nested = server.db.select({ gig: gigs }).from(gigs).prepare(uniqueName());
    expect(leanPrepared(nested)).toBeUndefined();
  });
});

describe.skipIf(onPostgres)('on embedded PGlite', () => {
  it("leaves every prepared read to Drizzle's own execute", () => {
    const query = gigById();
    expect(leanPrepared(query)).toBeUndefined();
  });
});
