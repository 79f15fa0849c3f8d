// Credits over HTTP: GET /api/credits (a new user on the free tier with its first monthly grant),
// POST /api/credits (deductions: 402 with nothing changed, idempotent repeats by reason and
// reference, 20 concurrent deductions on a balance of 10), GET /api/credits/transactions (the
// ledger, newest first, in pages); invalid input and no credentials refused, changing nothing; and
// the ledger itself: double entry, balanced, append-only (the database refuses edits).
import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { balanceOf, expectLedgerBalanced, ledgerCounts, ledgerOf } from '../helpers/credits.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { creditAccounts, creditEntries, creditTransactions } from '../../db/schema.ts';
import { grantPeriod, nextPeriodStart } from '../../src/domain/credits.ts';
import { setTier } from '../../src/services/credits.ts';

const server = testFileServer();

type Body = { amount: number; reason: 'match_deduction' | 'intro_deduction'; reference_id?: string };
const deduct = (user: User, body: Body, headers: Record<string, string> = {}) => user.api.POST('/api/credits', { body, headers });
const credits = (user: User) => user.api.GET('/api/credits');
const entries = (user: User, query: { limit?: number; cursor?: string } = {}) =>
  user.api.GET('/api/credits/transactions', { params: { query } });

/** A new user who has spent all but `balance` of the free tier's 20 credits. */
async function userWithBalance(balance: number, name = 'Spender'): Promise<User> {
  const user = await server.user(name);
  if (balance < 20) expect((await deduct(user, { amount: 20 - balance, reason: 'match_deduction' })).response.status).toBe(200);
  expect((await credits(user)).data!.credits_balance).toBe(balance);
  return user;
}

describe('GET /api/credits', () => {
  it('starts a new user on the free tier with its monthly grant, in the ledger and as credits.granted', async () => {
    const ada = await server.user('Ada');
    const res = await credits(ada);
    expect(res.response.status).toBe(200);
    const now = new Date();
    expect(res.data).toEqual({
      credits_balance: 20,
      subscription_tier: 'free',
      monthly_grant: 20,
      next_grant_at: nextPeriodStart(now).toISOString(),
    });
    expect(await ledgerOf(server, ada.userId)).toEqual([
      { transactionId: expect.any(String), reason: 'monthly_grant', referenceId: grantPeriod(now), note: null, amount: 20 },
    ]);
    // Asked again: the same grant, nothing more.
    expect((await credits(ada)).data!.credits_balance).toBe(20);
    const list = await entries(ada);
    expect(list.data!.data).toEqual([
      {
        id: expect.any(String),
        transaction_id: expect.any(String),
        amount: 20,
        reason: 'monthly_grant',
        reference_id: grantPeriod(now),
        note: null,
        created_at: expect.any(String),
      },
    ]);
    const written = await eventsForResource(server.db, 'credit_entry', list.data!.data[0]!.id);
    expect(written).toMatchObject([
      { type: 'credits.granted', actorUserId: null, audienceUserIds: [ada.userId], data: list.data!.data[0] },
    ]);
    const feed = await ada.api.GET('/api/events', { params: { query: { type: ['credits.granted'] } } });
    expect(feed.data!.data.map((e) => e.id)).toEqual([written[0]!.id]);
    await expectLedgerBalanced(server);
  });

  it('shows the tier an operator set, and its grant', async () => {
    const bob = await server.user('Bob');
    await setTier(server, bob.userId, 'pro');
    // The account opened on the pro tier, so this month's grant is pro's.
    expect((await credits(bob)).data).toMatchObject({ credits_balance: 200, subscription_tier: 'pro', monthly_grant: 200 });
  });

  it('401 without credentials, for every credits operation', async () => {
    expectError(await server.anonymous.GET('/api/credits'), 401, 'UNAUTHENTICATED');
    expectError(await server.anonymous.GET('/api/credits/transactions'), 401, 'UNAUTHENTICATED');
    const before = await ledgerCounts(server);
    expectError(await server.anonymous.POST('/api/credits', { body: { amount: 1, reason: 'match_deduction' } }), 401, 'UNAUTHENTICATED');
    expect(await ledgerCounts(server)).toEqual(before);
  });
});

describe('POST /api/credits', () => {
  it('deducts: the new balance and the entry, balanced by the platform', async () => {
    const ada = await userWithBalance(20);
    const res = await deduct(ada, { amount: 3, reason: 'intro_deduction', reference_id: 'intro-42' });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      credits_balance: 17,
      repeated: false,
      entry: {
        id: expect.any(String),
        transaction_id: expect.any(String),
        amount: -3,
        reason: 'intro_deduction',
        reference_id: 'intro-42',
        note: null,
        created_at: expect.any(String),
      },
    });
    expect(await balanceOf(server, ada.userId)).toBe(17);
    expect((await credits(ada)).data!.credits_balance).toBe(17);
    // The platform's entry is the opposite of the user's.
    const legs = await server.db.select().from(creditEntries).where(eq(creditEntries.transactionId, res.data!.entry.transaction_id));
    expect(legs.map((l) => l.amount).sort((a, b) => a - b)).toEqual([-3, 3]);
    // Deductions write no event; only grants do.
    expect(await eventsForResource(server.db, 'credit_entry', res.data!.entry.id)).toEqual([]);
    await expectLedgerBalanced(server);
  });

  it('402 INSUFFICIENT_CREDITS for more than the balance, changing nothing', async () => {
    const ada = await userWithBalance(2);
    const before = { counts: await ledgerCounts(server), ledger: await ledgerOf(server, ada.userId) };
    expectError(
      await deduct(ada, { amount: 3, reason: 'match_deduction' }),
      402,
      'INSUFFICIENT_CREDITS',
      /costs 3 credits and the balance is 2/,
    );
    expectError(await deduct(ada, { amount: 3, reason: 'match_deduction', reference_id: 'r1' }), 402, 'INSUFFICIENT_CREDITS');
    expect(await ledgerCounts(server)).toEqual(before.counts);
    expect(await ledgerOf(server, ada.userId)).toEqual(before.ledger);
    // Exactly the balance is fine, and leaves zero; then even 1 is too much.
    expect((await deduct(ada, { amount: 2, reason: 'match_deduction', reference_id: 'r1' })).data!.credits_balance).toBe(0);
    expectError(await deduct(ada, { amount: 1, reason: 'intro_deduction' }), 402, 'INSUFFICIENT_CREDITS', /costs 1 credit and/);
    expect(await balanceOf(server, ada.userId)).toBe(0);
  });

  it('deducts once per reason and reference_id: a repeat answers the first entry and the current balance', async () => {
    const ada = await userWithBalance(10);
    const first = await deduct(ada, { amount: 4, reason: 'match_deduction', reference_id: 'match-1' });
    expect(first.data).toMatchObject({ credits_balance: 6, repeated: false });
    const again = await deduct(ada, { amount: 4, reason: 'match_deduction', reference_id: 'match-1' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual({ credits_balance: 6, repeated: true, entry: first.data!.entry });
    // Whatever its amount, even one the balance could not pay now.
    await deduct(ada, { amount: 5, reason: 'intro_deduction' });
    const bigger = await deduct(ada, { amount: 9, reason: 'match_deduction', reference_id: 'match-1' });
    expect(bigger.data).toEqual({ credits_balance: 1, repeated: true, entry: first.data!.entry });
    // The same reference under the other reason is another deduction.
    const other = await deduct(ada, { amount: 1, reason: 'intro_deduction', reference_id: 'match-1' });
    expect(other.data).toMatchObject({ credits_balance: 0, repeated: false });
    expect((await ledgerOf(server, ada.userId)).filter((e) => e.referenceId === 'match-1').map((e) => [e.reason, e.amount])).toEqual([
      ['match_deduction', -4],
      ['intro_deduction', -1],
    ]);
    // Another user's reference is their own.
    const bob = await userWithBalance(20, 'Bob');
    expect((await deduct(bob, { amount: 4, reason: 'match_deduction', reference_id: 'match-1' })).data!.repeated).toBe(false);
  });

  it('of concurrent repeats with one reference, deducts once', async () => {
    const ada = await userWithBalance(20);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => deduct(ada, { amount: 2, reason: 'intro_deduction', reference_id: 'once' })),
    );
    expect(results.map((r) => r.response.status)).toEqual(Array(8).fill(200));
    expect(results.filter((r) => !r.data!.repeated)).toHaveLength(1);
    expect(new Set(results.map((r) => r.data!.entry.id)).size).toBe(1);
    expect(await balanceOf(server, ada.userId)).toBe(18);
  });

  it('of 20 concurrent deductions of 1 on a balance of 10, applies 10 and refuses 10 with 402, leaving 0', async () => {
    const ada = await userWithBalance(10);
    const results = await Promise.all(Array.from({ length: 20 }, () => deduct(ada, { amount: 1, reason: 'match_deduction' })));
    const statuses = results.map((r) => r.response.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    for (const r of results.filter((x) => x.response.status === 402)) expectError(r, 402, 'INSUFFICIENT_CREDITS');
    // Each applied one saw the balance the one before it left.
    expect(
      results
        .filter((r) => r.response.status === 200)
        .map((r) => r.data!.credits_balance)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await balanceOf(server, ada.userId)).toBe(0);
    expect((await credits(ada)).data!.credits_balance).toBe(0);
    expect((await ledgerOf(server, ada.userId)).filter((e) => e.amount === -1)).toHaveLength(10);
    await expectLedgerBalanced(server);
  });

  it('replays the first answer for a repeated Idempotency-Key', async () => {
    const ada = await userWithBalance(20);
    const first = await deduct(ada, { amount: 2, reason: 'match_deduction' }, { 'idempotency-key': 'deduct-once' });
    const again = await deduct(ada, { amount: 2, reason: 'match_deduction' }, { 'idempotency-key': 'deduct-once' });
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(await balanceOf(server, ada.userId)).toBe(18);
  });

  it('refuses invalid input with 400 naming the field, changing nothing', async () => {
    const ada = await userWithBalance(20);
    const before = await ledgerCounts(server);
    const bad: [unknown, string][] = [
      [{ amount: 0, reason: 'match_deduction' }, 'body.amount'],
      [{ amount: -1, reason: 'match_deduction' }, 'body.amount'],
      [{ amount: 1.5, reason: 'match_deduction' }, 'body.amount'],
      [{ amount: '1', reason: 'match_deduction' }, 'body.amount'],
      [{ amount: 10_001, reason: 'match_deduction' }, 'body.amount'],
      [{ reason: 'match_deduction' }, 'body.amount'],
      [{ amount: 1, reason: 'lunch' }, 'body.reason'],
      [{ amount: 1, reason: 'monthly_grant' }, 'body.reason'],
      [{ amount: 1 }, 'body.reason'],
      [{ amount: 1, reason: 'match_deduction', reference_id: '' }, 'body.reference_id'],
      [{ amount: 1, reason: 'match_deduction', reference_id: 'x'.repeat(129) }, 'body.reference_id'],
      [{ amount: 1, reason: 'match_deduction', reference_id: 'negotiation:0190a5b5-3c4d-7e5f-8a6b-7c8d9e0f1a2b' }, 'body.reference_id'],
      [{ amount: 1, reason: 'match_deduction', reference_id: 'with space' }, 'body.reference_id'],
      [{ amount: 1, reason: 'match_deduction', extra: true }, 'body.extra'],
    ];
    for (const [body, path] of bad) expectInvalid(await ada.api.POST('/api/credits', { body: body as never }), path);
    expect(await ledgerCounts(server)).toEqual(before);
    expect(await balanceOf(server, ada.userId)).toBe(20);
  });
});

describe('GET /api/credits/transactions', () => {
  it("lists the caller's entries newest first, in pages, and nobody else's", async () => {
    const ada = await userWithBalance(20);
    for (const amount of [1, 2, 3]) await deduct(ada, { amount, reason: 'match_deduction', reference_id: `m${amount}` });
    await userWithBalance(15, 'Other');
    const first = await entries(ada, { limit: 2 });
    expect(first.data!.data.map((e) => [e.amount, e.reference_id])).toEqual([
      [-3, 'm3'],
      [-2, 'm2'],
    ]);
    const second = await entries(ada, { limit: 2, cursor: first.data!.next_cursor! });
    expect(second.data!.data.map((e) => [e.amount, e.reason])).toEqual([
      [-1, 'match_deduction'],
      [20, 'monthly_grant'],
    ]);
    expect(second.data!.next_cursor).toBeNull();
    // The balance is the sum of the entries.
    const all = [...first.data!.data, ...second.data!.data];
    expect(all.reduce((s, e) => s + e.amount, 0)).toBe((await credits(ada)).data!.credits_balance);
    expectInvalid(await entries(ada, { cursor: 'not-a-cursor' }), 'query.cursor');
    expectInvalid(await entries(ada, { limit: 0 }), 'query.limit');
    expectInvalid(await entries(ada, { limit: 101 }), 'query.limit');
  });
});

describe('the ledger', () => {
  /** What the database said when it refused the statement (Drizzle wraps it as the cause). */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (e: Error) => String((e.cause as Error | undefined)?.message ?? e.message),
    );

  it('is append-only and balanced: the database refuses edits, deletes and a one-legged transaction', async () => {
    const ada = await userWithBalance(19);
    const [entry] = await server.db.select().from(creditEntries).limit(1);
    expect(await refusal(server.db.update(creditEntries).set({ amount: 1000 }).where(eq(creditEntries.id, entry!.id)))).toMatch(
      /append-only/,
    );
    expect(await refusal(server.db.delete(creditEntries).where(eq(creditEntries.id, entry!.id)))).toMatch(/append-only/);
    expect(await refusal(server.db.update(creditTransactions).set({ note: 'edited' }))).toMatch(/append-only/);
    expect(await refusal(server.db.delete(creditTransactions))).toMatch(/append-only/);
    expect(await refusal(server.db.execute(sql`truncate credit_entries`))).toMatch(/append-only/);
    const [account] = await server.db.select().from(creditAccounts).where(eq(creditAccounts.userId, ada.userId));
    const oneLegged = server.db.transaction(async (tx) => {
      const id = '0190a5c9-0000-7000-8000-00000000f00d';
      await tx.insert(creditTransactions).values({ id, userId: ada.userId, reason: 'operator_grant' });
      await tx.insert(creditEntries).values({ id, transactionId: id, accountId: account!.id, amount: 1000 });
    });
    expect(await refusal(oneLegged)).toMatch(/is not balanced: 1 entries/);
    expect(await balanceOf(server, ada.userId)).toBe(19);
    await expectLedgerBalanced(server);
  });
});
