// The credits ledger (db/schema/credits.ts): accounts, and transactions written with their two
// entries. Nothing here updates or deletes a transaction or an entry; a balance is always the sum
// of its account's entries.
import { and, desc, eq, gt, isNotNull, lt, notExists, sql } from 'drizzle-orm';
import { creditAccounts, creditEntries, creditTransactions, PLATFORM_ACCOUNT_ID, users } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { CreditReason, SubscriptionTier } from '../schema/column-values.ts';

export type CreditAccountRow = typeof creditAccounts.$inferSelect;

/** A user's side of a transaction: their entry, with the transaction's reason and reference. */
export interface CreditEntryView {
  id: string;
  transactionId: string;
  userId: string;
  amount: number;
  reason: CreditReason;
  referenceId: string | null;
  note: string | null;
  createdAt: Date;
}

const entryView = {
  id: creditEntries.id,
  transactionId: creditEntries.transactionId,
  userId: creditTransactions.userId,
  amount: creditEntries.amount,
  reason: creditTransactions.reason,
  referenceId: creditTransactions.referenceId,
  note: creditTransactions.note,
  createdAt: creditEntries.createdAt,
};

/** The user's entries: those on the account of the transaction's own user (not the platform's). */
const userEntries = (db: Executor) =>
  db
    .select(entryView)
    .from(creditEntries)
    .innerJoin(creditTransactions, eq(creditTransactions.id, creditEntries.transactionId))
    .innerJoin(creditAccounts, and(eq(creditAccounts.id, creditEntries.accountId), eq(creditAccounts.userId, creditTransactions.userId)));

/** Opens these accounts; one that exists (a concurrent twin included) is left as it is. */
export async function insertAccounts(tx: Executor, rows: { id: string; userId: string; subscriptionTier: SubscriptionTier }[]) {
  if (rows.length) await tx.insert(creditAccounts).values(rows).onConflictDoNothing({ target: creditAccounts.userId });
}

/**
 * The user's account, locked until the transaction ends: changes of its balance happen one at a
 * time. `for no key update`, not `for update`: it excludes every other change of the balance just
 * the same, but not the key-share locks that inserting entries takes on the accounts they name, so
 * the grant job, writing entries for many accounts, never waits on a deduction that may wait on it.
 */
export async function lockAccount(tx: Executor, userId: string): Promise<CreditAccountRow | undefined> {
  const [row] = await tx.select().from(creditAccounts).where(eq(creditAccounts.userId, userId)).limit(1).for('no key update');
  return row;
}

/** Sets the tier (the update locks the row as lockAccount does). */
export async function setAccountTier(tx: Executor, userId: string, tier: SubscriptionTier): Promise<CreditAccountRow | undefined> {
  const [row] = await tx
    .update(creditAccounts)
    .set({ subscriptionTier: tier, updatedAt: new Date() })
    .where(eq(creditAccounts.userId, userId))
    .returning();
  return row;
}

/** The account's balance: the sum of its entries. */
export async function balanceOf(db: Executor, accountId: string): Promise<number> {
  const [row] = await db
    .select({ balance: sql<number>`coalesce(sum(${creditEntries.amount}), 0)`.mapWith(Number) })
    .from(creditEntries)
    .where(eq(creditEntries.accountId, accountId));
  return row?.balance ?? 0;
}

/** The user's entry of the transaction with this reason and reference, if there is one. */
export async function findEntryByReference(
  db: Executor,
  userId: string,
  reason: CreditReason,
  referenceId: string,
): Promise<CreditEntryView | undefined> {
  const [row] = await userEntries(db)
    .where(
      and(eq(creditTransactions.userId, userId), eq(creditTransactions.reason, reason), eq(creditTransactions.referenceId, referenceId)),
    )
    .limit(1);
  return row;
}

export interface NewCreditTransaction {
  id: string;
  userId: string;
  /** The user's account. */
  accountId: string;
  reason: CreditReason;
  referenceId: string | null;
  note: string | null;
  /** What it does to the user's balance (positive: a grant; negative: a deduction); the platform's entry is its opposite. */
  amount: number;
  userEntryId: string;
  platformEntryId: string;
}

/**
 * Writes the transactions with both their entries, skipping any whose (user, reason, reference)
 * exists already (a concurrent twin included: the unique index decides). Returns the user's
 * entries of those written.
 */
export async function insertTransactions(tx: Executor, rows: NewCreditTransaction[]): Promise<CreditEntryView[]> {
  if (!rows.length) return [];
  const written = await tx
    .insert(creditTransactions)
    .values(rows.map((r) => ({ id: r.id, userId: r.userId, reason: r.reason, referenceId: r.referenceId, note: r.note })))
    .onConflictDoNothing()
    .returning({ id: creditTransactions.id, createdAt: creditTransactions.createdAt });
  const at = new Map(written.map((w) => [w.id, w.createdAt]));
  const kept = rows.filter((r) => at.has(r.id));
  if (!kept.length) return [];
  await tx.insert(creditEntries).values(
    kept.flatMap((r) => [
      { id: r.userEntryId, transactionId: r.id, accountId: r.accountId, amount: r.amount, createdAt: at.get(r.id)! },
      { id: r.platformEntryId, transactionId: r.id, accountId: PLATFORM_ACCOUNT_ID, amount: -r.amount, createdAt: at.get(r.id)! },
    ]),
  );
  return kept.map((r) => ({
    id: r.userEntryId,
    transactionId: r.id,
    userId: r.userId,
    amount: r.amount,
    reason: r.reason,
    referenceId: r.referenceId,
    note: r.note,
    createdAt: at.get(r.id)!,
  }));
}

/** The user's entries, newest first (limit + 1 rows, for paging). */
export async function listEntries(db: Executor, userId: string, page: { limit: number; beforeId?: string }): Promise<CreditEntryView[]> {
  return userEntries(db)
    .where(and(eq(creditAccounts.userId, userId), page.beforeId ? lt(creditEntries.id, page.beforeId) : undefined))
    .orderBy(desc(creditEntries.id))
    .limit(page.limit + 1);
}

/** Accounts of users (not deleted) without their monthly grant of this period, by id after `afterId`, at most `limit`. */
export async function accountsWithoutGrant(db: Executor, period: string, limit: number, afterId?: string): Promise<CreditAccountRow[]> {
  const granted = db
    .select({ one: sql`1` })
    .from(creditTransactions)
    .where(
      and(
        eq(creditTransactions.userId, creditAccounts.userId),
        eq(creditTransactions.reason, 'monthly_grant'),
        eq(creditTransactions.referenceId, period),
      ),
    );
  return db
    .select()
    .from(creditAccounts)
    .where(
      and(
        isNotNull(creditAccounts.userId),
        afterId ? gt(creditAccounts.id, afterId) : undefined,
        notExists(granted),
        // A deleted account keeps its ledger for audit, and gets nothing more.
        notExists(
          db
            .select({ one: sql`1` })
            .from(users)
            .where(and(eq(users.id, creditAccounts.userId), isNotNull(users.deletedAt))),
        ),
      ),
    )
    .orderBy(creditAccounts.id)
    .limit(limit);
}
