// The credits ledger as the tests read it straight from the database: a user's entries and balance,
// and the invariants of double entry over the whole ledger.
import { expect } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { creditAccounts, creditEntries, creditTransactions, PLATFORM_ACCOUNT_ID } from '../../db/schema.ts';
import type { TestServer } from './server.ts';

const rowsOf = (result: unknown): Record<string, unknown>[] =>
  Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows;

/** The user's transactions with their entry on the user's account, oldest first. */
export async function ledgerOf(server: TestServer, userId: string) {
  return server.db
    .select({
      transactionId: creditTransactions.id,
      reason: creditTransactions.reason,
      referenceId: creditTransactions.referenceId,
      note: creditTransactions.note,
      amount: creditEntries.amount,
    })
    .from(creditTransactions)
    .innerJoin(creditEntries, eq(creditEntries.transactionId, creditTransactions.id))
    .innerJoin(creditAccounts, eq(creditAccounts.id, creditEntries.accountId))
    .where(eq(creditAccounts.userId, userId))
    .orderBy(creditTransactions.id);
}

/** The sum of the user's entries (what the API must answer as the balance). */
export async function balanceOf(server: TestServer, userId: string): Promise<number> {
  return (await ledgerOf(server, userId)).reduce((sum, e) => sum + e.amount, 0);
}

/**
 * Double entry holds over the whole ledger: every transaction has two entries summing to zero,
 * one on its user's account and one on the platform's; no user account is below zero; and the
 * platform's balance is minus the users' total.
 */
export async function expectLedgerBalanced(server: TestServer): Promise<void> {
  const unbalanced = rowsOf(
    await server.db.execute(sql`
      select t.id, count(e.id) as legs, coalesce(sum(e.amount), 0) as total
        from credit_transactions t left join credit_entries e on e.transaction_id = t.id
        left join credit_accounts a on a.id = e.account_id
       group by t.id
      having count(e.id) <> 2 or coalesce(sum(e.amount), 0) <> 0
          or count(*) filter (where a.user_id = t.user_id) <> 1
          or count(*) filter (where a.id = ${PLATFORM_ACCOUNT_ID}) <> 1`),
  );
  expect(unbalanced).toEqual([]);
  const negative = rowsOf(
    await server.db.execute(sql`
      select a.user_id, sum(e.amount) as balance from credit_entries e join credit_accounts a on a.id = e.account_id
       where a.user_id is not null group by a.user_id having sum(e.amount) < 0`),
  );
  expect(negative).toEqual([]);
  const [all] = rowsOf(await server.db.execute(sql`select coalesce(sum(amount), 0)::int as total from credit_entries`));
  expect(Number(all!.total)).toBe(0);
}

/** Rows in the ledger's tables: a refused request must leave them as they were. */
export async function ledgerCounts(server: TestServer) {
  const [row] = rowsOf(
    await server.db.execute(sql`
      select (select count(*) from credit_accounts)::int as accounts, (select count(*) from credit_transactions)::int as transactions,
             (select count(*) from credit_entries)::int as entries`),
  );
  return { accounts: Number(row!.accounts), transactions: Number(row!.transactions), entries: Number(row!.entries) };
}
