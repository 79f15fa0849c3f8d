// Contract reviews over HTTP: each party of a completed contract reviews the other once,
// double-blind (hidden from the other party until both have reviewed or the 14-day review period
// ends, then published with review.published); the published ones on the reviewed user's profile
// (list, count, average) and in worker recommendations. Each operation: success, invalid input, no
// credentials, a non-party, the wrong state, races; the database after each. Time moves by the
// publication job's clock argument (publishDueReviews(ctx, now)) and, for requests, by moving a
// contract's completion back in the database.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { completedSandboxContract, pendingContract } from '../helpers/lifecycle.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { contracts, reviews } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { publishDueReviews } from '../../src/services/reviews.ts';
import { REVIEW_PERIOD_MS } from '../../src/domain/review.ts';
import { REVIEW_PUBLICATION_QUEUE } from '../../src/job-system/queues.ts';
import { newId } from '../../src/ids.ts';

const server = testFileServer();
let stranger: User;

beforeAll(async () => {
  stranger = await server.user('Stranger');
});

type Body = { rating: number; text: string };
const review = (user: { api: User['api'] }, id: string, body: Body = { rating: 5, text: 'Great to work with.' }) =>
  user.api.POST('/api/contracts/{id}/reviews', { params: { path: { id } }, body });
const view = (user: { api: User['api'] }, id: string) => user.api.GET('/api/contracts/{id}/reviews', { params: { path: { id } } });
const profileReviews = (user: { api: User['api'] }, userId: string, query: { limit?: number; cursor?: string } = {}) =>
  user.api.GET('/api/profile/{userId}/reviews', { params: { path: { userId }, query } });
const rows = (contractId: string) => server.db.select().from(reviews).where(eq(reviews.contractId, contractId)).orderBy(reviews.id);
const published = async (reviewIds: string[]) =>
  (await Promise.all(reviewIds.map((id) => eventsForResource(server.db, 'review', id))))
    .flat()
    .filter((e) => e.type === 'review.published');

/** A client and a worker with a completed contract between them. */
async function completed(names = { client: 'Carol', worker: 'Walter' }) {
  const client = await server.user(names.client);
  const worker = await server.user(names.worker);
  const { contract } = await completedSandboxContract(client, worker);
  return { client, worker, contract };
}

/** Moves the contract's completion `ms` into the past, as if that much time had gone by. */
async function completedAgo(contractId: string, ms: number) {
  await server.db
    .update(contracts)
    .set({ completedAt: new Date(Date.now() - ms) })
    .where(eq(contracts.id, contractId));
}

describe('POST /api/contracts/{id}/reviews and GET /api/contracts/{id}/reviews', () => {
  for (const first of ['client', 'worker'] as const) {
    it(`keeps the ${first}'s review blind until the other party reviews, then publishes both`, async () => {
      const deal = await completed();
      const author = deal[first];
      const other = first === 'client' ? deal.worker : deal.client;
      const deadline = new Date(Date.parse(deal.contract.completed_at!) + REVIEW_PERIOD_MS).toISOString();

      const res = await review(author, deal.contract.id, { rating: 4, text: '  Solid work, a day late.  ' });
      expect(res.response.status).toBe(201);
      expect(res.data).toEqual({
        contract_id: deal.contract.id,
        review_deadline: deadline,
        can_review: false,
        yours: {
          id: expect.any(String),
          contract_id: deal.contract.id,
          author_user_id: author.userId,
          author_role: first,
          reviewee_user_id: other.userId,
          rating: 4,
          text: 'Solid work, a day late.',
          created_at: expect.any(String),
          published_at: null,
        },
        theirs: { status: 'not_submitted', review: null },
      });
      const [stored] = await rows(deal.contract.id);
      expect(stored).toMatchObject({ authorUserId: author.userId, revieweeUserId: other.userId, rating: 4, publishedAt: null });
      expect(await published([stored!.id])).toEqual([]);

      // The other party learns that a review exists, not what it says; nor does anyone else.
      const blind = await view(other, deal.contract.id);
      expect(blind.data).toEqual({
        contract_id: deal.contract.id,
        review_deadline: deadline,
        can_review: true,
        yours: null,
        theirs: { status: 'submitted', review: null },
      });
      expect(JSON.stringify(blind.data)).not.toContain('a day late');
      expect((await profileReviews(stranger, other.userId)).data).toEqual({ data: [], next_cursor: null });
      const otherProfile = await stranger.api.GET('/api/profile/{userId}', { params: { path: { userId: other.userId } } });
      expect(otherProfile.data).toMatchObject({ review_count: 0, average_rating: null });
      const feed = await other.api.GET('/api/events', { params: { query: { type: ['review.published'] } } });
      expect(feed.data!.data).toEqual([]);
      expect((await view(author, deal.contract.id)).data).toEqual(res.data);

      // The second review publishes both, at once, with an event each for its reviewed user.
      const second = await review(other, deal.contract.id, { rating: 5, text: 'Clear and fair.' });
      expect(second.response.status).toBe(201);
      expect(second.data!.yours).toMatchObject({ rating: 5, published_at: expect.any(String) });
      expect(second.data!.theirs).toEqual({
        status: 'published',
        review: { ...res.data!.yours, published_at: second.data!.yours!.published_at },
      });
      const both = await rows(deal.contract.id);
      expect(both.map((r) => r.publishedAt?.toISOString())).toEqual([second.data!.yours!.published_at, second.data!.yours!.published_at]);
      const events = await published(both.map((r) => r.id));
      expect(events).toHaveLength(2);
      for (const r of both) {
        const e = events.find((x) => x.resourceId === r.id)!;
        expect(e).toMatchObject({ actorUserId: other.userId, audienceUserIds: [r.revieweeUserId], data: { id: r.id, rating: r.rating } });
      }
      const afterwards = await view(author, deal.contract.id);
      expect(afterwards.data).toMatchObject({
        can_review: false,
        theirs: { status: 'published', review: { rating: 5, text: 'Clear and fair.' } },
      });
    });
  }

  it('publishes a lone review when the review period ends (the job, by its clock), and closes the period', async () => {
    const deal = await completed();
    expect((await review(deal.client, deal.contract.id)).response.status).toBe(201);
    const [lone] = await rows(deal.contract.id);
    const deadline = Date.parse(deal.contract.completed_at!) + REVIEW_PERIOD_MS;

    // Just before the deadline nothing of this contract is published; at the deadline it is, once.
    await publishDueReviews({ db: server.db }, new Date(deadline - 1));
    expect((await rows(deal.contract.id))[0]!.publishedAt).toBeNull();
    expect(await publishDueReviews({ db: server.db }, new Date(deadline))).toBeGreaterThanOrEqual(1);
    const after = (await rows(deal.contract.id))[0]!;
    expect(after.publishedAt).toEqual(new Date(deadline));
    await publishDueReviews({ db: server.db }, new Date(deadline + 60_000));
    const events = await published([lone!.id]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorUserId: null, audienceUserIds: [deal.worker.userId] });

    // Time has passed for the requests too: the worker sees the review, and can no longer write one.
    await completedAgo(deal.contract.id, REVIEW_PERIOD_MS + 1000);
    const seen = await view(deal.worker, deal.contract.id);
    expect(seen.data).toMatchObject({ can_review: false, yours: null, theirs: { status: 'published', review: { id: lone!.id } } });
    expectError(await review(deal.worker, deal.contract.id), 409, 'INVALID_STATE', /review period of this contract ended/);
    expect(await rows(deal.contract.id)).toHaveLength(1);
    const listed = await profileReviews(stranger, deal.worker.userId);
    expect(listed.data!.data.map((r) => r.id)).toEqual([lone!.id]);
  });

  it('the scheduled job publishes reviews whose period has ended, and only those', async () => {
    const due = await completed();
    const recent = await completed();
    expect((await review(due.worker, due.contract.id)).response.status).toBe(201);
    expect((await review(recent.worker, recent.contract.id)).response.status).toBe(201);
    await completedAgo(due.contract.id, REVIEW_PERIOD_MS + 1000);

    await server.runtime.jobs.boss.send(REVIEW_PUBLICATION_QUEUE, {});
    await vi.waitFor(async () => expect((await rows(due.contract.id))[0]!.publishedAt).not.toBeNull(), { timeout: 60_000, interval: 100 });
    expect((await rows(recent.contract.id))[0]!.publishedAt).toBeNull();
    expect(await published([(await rows(due.contract.id))[0]!.id])).toHaveLength(1);
    expect((await view(recent.client, recent.contract.id)).data!.theirs).toEqual({ status: 'submitted', review: null });
  });

  it('refuses a second review by the same party with 409 CONFLICT, and keeps the first', async () => {
    const deal = await completed();
    expect((await review(deal.client, deal.contract.id, { rating: 2, text: 'Late.' })).response.status).toBe(201);
    expectError(await review(deal.client, deal.contract.id, { rating: 5, text: 'Changed my mind.' }), 409, 'CONFLICT', /already reviewed/);
    expect((await rows(deal.contract.id)).map((r) => [r.rating, r.text])).toEqual([[2, 'Late.']]);
  });

  it('of two identical reviews at once, stores one; of both parties at once, publishes both once', async () => {
    const twin = await completed();
    const results = await Promise.all([review(twin.client, twin.contract.id), review(twin.client, twin.contract.id)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([201, 409]);
    expect(await rows(twin.contract.id)).toHaveLength(1);

    const pair = await completed();
    const both = await Promise.all([review(pair.client, pair.contract.id), review(pair.worker, pair.contract.id)]);
    expect(both.map((r) => r.response.status)).toEqual([201, 201]);
    const stored = await rows(pair.contract.id);
    expect(stored.every((r) => r.publishedAt !== null)).toBe(true);
    expect(await published(stored.map((r) => r.id))).toHaveLength(2);
  });

  it('answers 409 INVALID_STATE before the contract is completed', async () => {
    const [client, worker] = await server.users('Client', 'Worker');
    const { contract } = await pendingContract(client, worker);
    expectError(await review(client, contract.id), 409, 'INVALID_STATE', /once the contract is completed; it is pending_owner_approval/);
    expectError(await view(worker, contract.id), 409, 'INVALID_STATE', /pending_owner_approval/);
    expect(await rows(contract.id)).toEqual([]);
  });

  it('answers 404 to anyone but the parties, and for an unknown contract', async () => {
    const deal = await completed();
    expectError(await review(stranger, deal.contract.id), 404, 'NOT_FOUND', /contract not found/);
    expectError(await view(stranger, deal.contract.id), 404, 'NOT_FOUND');
    expectError(await review(deal.client, newId()), 404, 'NOT_FOUND');
    expect(await rows(deal.contract.id)).toEqual([]);
  });

  it('refuses invalid input with 400 naming the field, and no credentials with 401, storing nothing', async () => {
    const deal = await completed();
    const id = deal.contract.id;
    const bad = (body: unknown) => deal.client.api.POST('/api/contracts/{id}/reviews', { params: { path: { id } }, body: body as Body });
    expectInvalid(await bad({ rating: 0, text: 'x' }), 'body.rating');
    expectInvalid(await bad({ rating: 6, text: 'x' }), 'body.rating');
    expectInvalid(await bad({ rating: 4.5, text: 'x' }), 'body.rating');
    expectInvalid(await bad({ rating: '5', text: 'x' }), 'body.rating');
    expectInvalid(await bad({ text: 'x' }), 'body.rating');
    expectInvalid(await bad({ rating: 5, text: '' }), 'body.text');
    expectInvalid(await bad({ rating: 5, text: ' \n\t ' }), 'body.text');
    expectInvalid(await bad({ rating: 5, text: 'x'.repeat(2001) }), 'body.text');
    expectInvalid(await bad({ rating: 5 }), 'body.text');
    expectInvalid(await bad({ rating: 5, text: 'x', stars: 5 }), 'body.stars');
    expectInvalid(
      await deal.client.api.POST('/api/contracts/{id}/reviews', { params: { path: { id: 'nope' } }, body: { rating: 5, text: 'x' } }),
      'path.id',
    );
    expectError(
      await server.anonymous.POST('/api/contracts/{id}/reviews', { params: { path: { id } }, body: { rating: 5, text: 'x' } }),
      401,
      'UNAUTHENTICATED',
    );
    expectError(await server.anonymous.GET('/api/contracts/{id}/reviews', { params: { path: { id } } }), 401, 'UNAUTHENTICATED');
    expect(await rows(id)).toEqual([]);
    // The bounds themselves are accepted.
    const longest = await review(deal.client, id, { rating: 1, text: 'y'.repeat(2000) });
    expect(longest.response.status).toBe(201);
    expect((await rows(id))[0]!.text).toHaveLength(2000);
  });
});

describe('GET /api/profile/{userId}/reviews and the profile', () => {
  it('lists published reviews newest first with author, role and gig, paginated; the profile counts and averages them', async () => {
    const [worker, one, two] = await server.users('Wanda', 'Client One', 'Client Two');
    const ids: string[] = [];
    for (const [client, rating] of [
      [one, 4],
      [two, 5],
    ] as const) {
      const { contract } = await completedSandboxContract(client, worker);
      const mine = await review(client, contract.id, { rating, text: `Rated ${rating}.` });
      ids.push(mine.data!.yours!.id);
      expect((await review(worker, contract.id, { rating: 3, text: 'Fine client.' })).response.status).toBe(201);
    }

    const all = await profileReviews(stranger, worker.userId);
    expect(all.response.status).toBe(200);
    expect(all.data!.data).toEqual([
      {
        id: ids[1],
        rating: 5,
        text: 'Rated 5.',
        author_user_id: two.userId,
        author_display_name: 'Client Two',
        author_role: 'client',
        gig_id: expect.any(String),
        gig_title: 'Build a Rust CLI',
        created_at: expect.any(String),
        published_at: expect.any(String),
      },
      expect.objectContaining({ id: ids[0], rating: 4, author_display_name: 'Client One', author_role: 'client' }),
    ]);
    const first = await profileReviews(stranger, worker.userId, { limit: 1 });
    expect(first.data!.data.map((r) => r.id)).toEqual([ids[1]]);
    const next = await profileReviews(stranger, worker.userId, { limit: 1, cursor: first.data!.next_cursor! });
    expect(next.data).toEqual({ data: [expect.objectContaining({ id: ids[0] })], next_cursor: null });

    // The clients' own profiles list what the worker said of them, as a worker.
    expect((await profileReviews(stranger, one.userId)).data!.data).toEqual([
      expect.objectContaining({ rating: 3, author_user_id: worker.userId, author_role: 'worker' }),
    ]);
    const profile = await stranger.api.GET('/api/profile/{userId}', { params: { path: { userId: worker.userId } } });
    expect(profile.data).toMatchObject({ review_count: 2, average_rating: 4.5 });
    expect((await worker.api.GET('/api/profile/me')).data).toMatchObject({ review_count: 2, average_rating: 4.5 });
  });

  it('answers 404 for an unknown user, 400 for a bad cursor or limit, 401 without credentials', async () => {
    expectError(await profileReviews(stranger, newId()), 404, 'NOT_FOUND', /user not found/);
    expectInvalid(await profileReviews(stranger, stranger.userId, { cursor: 'garbage' }), 'query.cursor');
    expectInvalid(await profileReviews(stranger, stranger.userId, { limit: 0 }), 'query.limit');
    expectInvalid(await stranger.api.GET('/api/profile/{userId}/reviews', { params: { path: { userId: 'x' } } }), 'path.userId');
    expectError(
      await server.anonymous.GET('/api/profile/{userId}/reviews', { params: { path: { userId: stranger.userId } } }),
      401,
      'UNAUTHENTICATED',
    );
  });

  it("tells the reviewed user in their inbox, linking to the contract's page, which shows them", async () => {
    const deal = await completed({ client: 'Cleo', worker: 'Wes' });
    await review(deal.client, deal.contract.id, { rating: 5, text: 'Would hire again.' });
    await review(deal.worker, deal.contract.id, { rating: 4, text: 'Good brief.' });
    await vi.waitFor(
      async () => {
        const inbox = await deal.worker.api.GET('/api/notifications/inbox/messages', {});
        const message = inbox.data!.data.find((m) => m.type === 'review.published');
        expect(message).toMatchObject({
          title: 'New review: 5/5 for "Build a Rust CLI"',
          body: 'The client rated you 5 of 5.\n\nContract:\n  "Build a Rust CLI"\nClient:\n  "Cleo"\nReview:\n  "Would hire again."',
          link: `${server.url}/#/contracts/${deal.contract.id}`, // its page shows the reviews
        });
      },
      { timeout: 60_000, interval: 100 },
    );
  });
});

describe('reviews in worker recommendations', () => {
  it('add the ratings clients published to the score, with a reason; ratings as a client do not count', async () => {
    const [client, rated, unrated] = await server.users('Recruiter', 'Rated Worker', 'Unrated Worker');
    for (const w of [rated, unrated]) await w.api.PATCH('/api/profile/me', { body: { skills: ['haskell'] } });
    for (const rating of [5, 4]) {
      const { contract } = await completedSandboxContract(client, rated);
      await review(client, contract.id, { rating, text: 'Good.' });
      await review(rated, contract.id, { rating: 1, text: 'Slow to pay.' });
    }
    // The unrated worker was rated only as a client: that does not count for them as a worker.
    const other = await server.user('Other Worker');
    const { contract } = await completedSandboxContract(unrated, other);
    await review(unrated, contract.id, { rating: 5, text: 'Great.' });
    await review(other, contract.id, { rating: 5, text: 'Great client.' });

    const gig = await client.api.POST('/api/gigs', { body: { title: 'Haskell parser', tags: ['haskell'] } });
    const res = await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: gig.data!.id } } });
    expect(res.response.status).toBe(200);
    const [top, second] = res.data!.data;
    // (ratings 5 and 4 as fits 1 and 0.75, with 3 neutral ones of 0.5) / 5 = 0.65
    expect(top).toMatchObject({
      user_id: rated.userId,
      review_count: 2,
      average_rating: 4.5,
      score_components: { skills: 1, vouches: 0, reviews: 0.65 },
    });
    expect(top!.match_reasons).toContain('rated 4.5 from 2 reviews');
    expect(top!.score).toBeCloseTo((0.6 * 1 + 0.25 * 0.65) / 1, 4);
    expect(second).toMatchObject({ user_id: unrated.userId, review_count: 0, average_rating: null, score_components: { reviews: null } });
    expect(second!.match_reasons.some((r) => r.startsWith('rated'))).toBe(false);
    expect(second!.score).toBeCloseTo(0.6 + 0.25 * 0.5, 4);
    // Blind reviews do not count.
    const blind = await completedSandboxContract(client, unrated);
    await review(client, blind.contract.id, { rating: 1, text: 'Bad.' });
    const again = await client.api.GET('/api/discovery/recommendations/workers', { params: { query: { gig_id: gig.data!.id } } });
    expect(again.data!.data.find((w) => w.user_id === unrated.userId)).toMatchObject({ review_count: 0 });
    expect(
      await server.db
        .select()
        .from(reviews)
        .where(inArray(reviews.revieweeUserId, [unrated.userId])),
    ).toHaveLength(2);
  });
});
