// Monthly grants: the credit-grants job (hourly on pg-boss) gives every account its tier's grant of
// the month once, however often and in however many runs at once it works; an account opens (at a
// user's first use of credits) with the month's grant, and one used before the job ran gets the
// month's grant at that moment; a tier applies from the next grant not yet made. Each grant writes
// credits.granted to its user.
import { describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { balanceOf, expectLedgerBalanced, ledgerOf } from '../helpers/credits.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { grantPeriod, MONTHLY_GRANT } from '../../src/domain/credits.ts';
import { deductInTransaction, getCredits, grantMonthlyCredits, setTier } from '../../src/services/credits.ts';
import { CREDIT_GRANTS_QUEUE } from '../../src/job-system/queues.ts';
import { insertAccounts } from '../../db/repositories/credits.ts';
import { creditAccounts, creditEntries, creditTransactions, PLATFORM_ACCOUNT_ID, users } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';
import { userActor } from '../../src/actor.ts';

const server = testFileServer();

/** The first moment of the month after `months` months from now, and a moment later in it. */
const monthAhead = (months: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 3, 10));
};
const grants = async (userId: string) => (await ledgerOf(server, userId)).filter((e) => e.reason === 'monthly_grant');

describe('the monthly grant', () => {
  it('is made once per account and period, however often the job runs, also at once', async () => {
    const free = await server.user('Free');
    await getCredits(server, userActor(free.userId)); // an account with this month's grant
    const pro = await server.user('Pro');
    await setTier(server, pro.userId, 'pro');
    const unused = await server.user('Unused'); // has never used credits: no account
    const next = monthAhead(1);

    const first = await grantMonthlyCredits(server, next);
    expect(first).toBeGreaterThanOrEqual(2); // every account of this server, these two included
    expect(await grantMonthlyCredits(server, next)).toBe(0);
    expect(await Promise.all([grantMonthlyCredits(server, next), grantMonthlyCredits(server, next)])).toEqual([0, 0]);

    const period = grantPeriod(next);
    expect((await grants(free.userId)).map((g) => [g.referenceId, g.amount])).toEqual([
      [grantPeriod(new Date()), 20],
      [period, 20],
    ]);
    expect((await grants(pro.userId)).map((g) => [g.referenceId, g.amount])).toEqual([
      [grantPeriod(new Date()), 200],
      [period, 200],
    ]);
    // The job writes nothing for a user who never used credits; their account opens with its grant.
    expect(await ledgerOf(server, unused.userId)).toEqual([]);
    const listed = await free.api.GET('/api/credits/transactions');
    expect(listed.data!.data[0]).toMatchObject({ reason: 'monthly_grant', reference_id: period, amount: 20 });
    expect(await eventsForResource(server.db, 'credit_entry', listed.data!.data[0]!.id)).toMatchObject([
      { type: 'credits.granted', actorUserId: null, audienceUserIds: [free.userId] },
    ]);
    await expectLedgerBalanced(server);
  });

  it('is not made to a deleted account, whose ledger stays', async () => {
    const gone = await server.user('Gone');
    await getCredits(server, userActor(gone.userId)); // an account with this month's grant
    await server.db.update(users).set({ deletedAt: new Date() }).where(eq(users.id, gone.userId));
    await grantMonthlyCredits(server, monthAhead(3));
    expect((await grants(gone.userId)).map((g) => g.referenceId)).toEqual([grantPeriod(new Date())]);
  });

  it('of two runs at once for a new period, grants each account once', async () => {
    const users = await Promise.all(['One', 'Two', 'Three'].map((n) => server.user(n)));
    for (const u of users) await getCredits(server, userActor(u.userId));
    const later = monthAhead(2);
    const [a, b] = await Promise.all([grantMonthlyCredits(server, later, 2), grantMonthlyCredits(server, later, 2)]);
    expect(a + b).toBeGreaterThanOrEqual(3);
    expect(await grantMonthlyCredits(server, later)).toBe(0);
    for (const u of users)
      expect((await grants(u.userId)).map((g) => g.referenceId)).toEqual([grantPeriod(new Date()), grantPeriod(later)]);
  });

  it("at the turn of a month, a deduction waiting on the job's uncommitted grant does not deadlock it", async () => {
    // The job has written a user's grant and is about to write its entries when the user's
    // deduction locks their account and waits for that grant (the same key). The job's entries
    // must not wait for the deduction's lock in turn: `for no key update` (with `for update`,
    // Postgres finds a deadlock here and aborts one of them).
    const user = await server.user('Busy');
    await getCredits(server, userActor(user.userId));
    const [account] = await server.db.select().from(creditAccounts).where(eq(creditAccounts.userId, user.userId));
    const turn = monthAhead(5);
    let written!: () => void;
    const grantWritten = new Promise<void>((resolve) => (written = resolve));
    const job = server.db.transaction(async (tx) => {
      const id = newId();
      await tx.insert(creditTransactions).values({ id, userId: user.userId, reason: 'monthly_grant', referenceId: grantPeriod(turn) });
      written();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the deduction is waiting by now
      await tx.insert(creditEntries).values([
        { id: newId(), transactionId: id, accountId: account!.id, amount: 20 },
        { id: newId(), transactionId: id, accountId: PLATFORM_ACCOUNT_ID, amount: -20 },
      ]);
    });
    await grantWritten;
    const deduction = server.db.transaction((tx) =>
      deductInTransaction(tx, user.userId, { amount: 3, reason: 'match_deduction', referenceId: null }, turn),
    );
    const results = await Promise.allSettled([job, deduction]);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect((await grants(user.userId)).map((g) => g.referenceId)).toEqual([grantPeriod(new Date()), grantPeriod(turn)]);
    expect(await balanceOf(server, user.userId)).toBe(40 - 3);
    await expectLedgerBalanced(server);
  });

  it('comes with the first use of credits in a month the job has not reached yet', async () => {
    const user = await server.user('Early');
    await getCredits(server, userActor(user.userId));
    const next = monthAhead(3);
    // The job has not run for that month: the first use makes the grant, the job then finds it made.
    expect((await getCredits(server, userActor(user.userId), next)).credits_balance).toBe(40);
    expect((await getCredits(server, userActor(user.userId), next)).credits_balance).toBe(40);
    await grantMonthlyCredits(server, next);
    expect((await grants(user.userId)).map((g) => g.referenceId)).toEqual([grantPeriod(new Date()), grantPeriod(next)]);
  });

  it("applies a new tier from the next grant, not this month's", async () => {
    const user = await server.user('Upgrader');
    await getCredits(server, userActor(user.userId));
    expect(await setTier(server, user.userId, 'team')).toMatchObject({
      credits_balance: 20,
      subscription_tier: 'team',
      monthly_grant: 1000,
    });
    await grantMonthlyCredits(server, monthAhead(4));
    expect(await balanceOf(server, user.userId)).toBe(20 + MONTHLY_GRANT.team);
  });

  it('runs on pg-boss: scheduled hourly, and a job run twice grants once', async () => {
    const boss = server.runtime.jobs.boss;
    expect((await boss.getSchedules(CREDIT_GRANTS_QUEUE)).map((s) => s.cron)).toEqual(['5 * * * *']);
    // An account as last month left it: open, without this month's grant yet.
    const user = await server.user('Scheduled');
    await insertAccounts(server.db, [{ id: newId(), userId: user.userId, subscriptionTier: 'free' }]);
    const ids = [await boss.send(CREDIT_GRANTS_QUEUE, {}), await boss.send(CREDIT_GRANTS_QUEUE, {})];
    await vi.waitFor(
      async () => {
        const jobs = await boss.findJobs(CREDIT_GRANTS_QUEUE, {});
        expect(jobs.filter((j) => ids.includes(j.id)).map((j) => j.state)).toEqual(['completed', 'completed']);
      },
      { timeout: 30_000, interval: 200 },
    );
    expect((await grants(user.userId)).map((g) => [g.referenceId, g.amount])).toEqual([[grantPeriod(new Date()), 20]]);
  });
});
