// The credits ledger (docs/architecture.md §12), double entry: every change of a balance is a
// transaction with two entries summing to zero, one on the user's account and one on the
// platform's. A balance is the sum of its account's entries; nothing caches it. Transactions and
// entries are append-only (the migration's triggers refuse UPDATE and DELETE) and balanced (a
// deferred trigger checks each transaction at commit).
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, oneOf, updatedAt } from './columns.ts';
import { CREDIT_REASONS, NOTE_MAX, REFERENCE_ID_MAX, SUBSCRIPTION_TIERS } from './column-values.ts';
import { users } from './identity.ts';

/** The platform's account (made by the migration): where grants come from and deductions go. */
export const PLATFORM_ACCOUNT_ID = '00000000-0000-7000-8000-000000000000';

/** One per user (opened at their first use of credits or first monthly grant), and the platform's (user_id null). */
export const creditAccounts = pgTable(
  'credit_accounts',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id),
    /** The user's subscription tier; null for the platform's account. */
    subscriptionTier: text('subscription_tier', { enum: SUBSCRIPTION_TIERS }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('credit_accounts_user_key').on(t.userId),
    check('credit_accounts_tier_check', oneOf(t.subscriptionTier, SUBSCRIPTION_TIERS)),
    // The platform's account is the one without a user (or tier), and there is one.
    check('credit_accounts_kind_check', sql`(${t.userId} is null) = (${t.subscriptionTier} is null)`),
    check('credit_accounts_platform_check', sql`(${t.userId} is null) = (${t.id} = ${sql.raw(`'${PLATFORM_ACCOUNT_ID}'`)})`),
  ],
);

/** One change of a user's balance: why, and under which reference (the key of idempotent repeats). */
export const creditTransactions = pgTable(
  'credit_transactions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    reason: text('reason', { enum: CREDIT_REASONS }).notNull(),
    /** The caller's key, the platform's (`negotiation:<id>`...), or a monthly grant's period (`2026-11`). */
    referenceId: text('reference_id'),
    /** An operator's words for a grant. */
    note: text('note'),
    createdAt: createdAt(),
  },
  (t) => [
    // Once per user, reason and reference: a repeat finds the first; a monthly grant is once per period.
    uniqueIndex('credit_transactions_reference_key').on(t.userId, t.reason, t.referenceId).where(sql`reference_id is not null`),
    check('credit_transactions_reason_check', oneOf(t.reason, CREDIT_REASONS)),
    check('credit_transactions_reference_check', sql`char_length(${t.referenceId}) between 1 and ${sql.raw(String(REFERENCE_ID_MAX))}`),
    check('credit_transactions_note_check', sql`char_length(${t.note}) between 1 and ${sql.raw(String(NOTE_MAX))}`),
  ],
);

/** A transaction's effect on one account: positive adds to its balance, negative takes away. */
export const creditEntries = pgTable(
  'credit_entries',
  {
    id: uuid('id').primaryKey(),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => creditTransactions.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => creditAccounts.id),
    amount: integer('amount').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('credit_entries_transaction_account_key').on(t.transactionId, t.accountId),
    // An account's entries newest first (the list), and its balance (their sum).
    index('credit_entries_account_idx').on(t.accountId, t.id),
    check('credit_entries_amount_check', sql`${t.amount} <> 0`),
  ],
);
