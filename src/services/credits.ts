// Credits (docs/architecture.md §12): balances kept as a double-entry ledger (db/schema/credits.ts),
// tiers with monthly grants (src/domain/credits.ts), deductions by the caller and the platform's
// charges for introductions and matches. Every change of a balance locks the user's account row
// first (`select … for no key update`), so deductions from one balance happen one at a time and never take it
// below zero; the account is always the last row a transaction locks (§10).
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import type { Executor } from '../../db/client.ts';
import * as repo from '../../db/repositories/credits.ts';
import type { CreditAccountRow, CreditEntryView } from '../../db/repositories/credits.ts';
import {
  DEFAULT_TIER,
  grantPeriod,
  introReference,
  matchReference,
  MONTHLY_GRANT,
  PRICE,
  type DeductionReason,
  type SubscriptionTier,
} from '../domain/credits.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { presentCreditEntry, presentCredits } from '../presenters/credits.ts';
import { creditsGrantedEvent } from './events.ts';

type Db = Pick<Context, 'db'>;

function newTransaction(account: CreditAccountRow, fields: Pick<repo.NewCreditTransaction, 'reason' | 'referenceId' | 'note' | 'amount'>) {
  return { id: newId(), userId: account.userId!, accountId: account.id, userEntryId: newId(), platformEntryId: newId(), ...fields };
}

/** Grants each account its tier's grant of the period, unless it has it; each grant written writes `credits.granted`. */
async function grantMonthly(tx: Executor, accounts: CreditAccountRow[], period: string): Promise<CreditEntryView[]> {
  const written = await repo.insertTransactions(
    tx,
    accounts.map((a) =>
      newTransaction(a, {
        reason: 'monthly_grant',
        referenceId: period,
        note: null,
        amount: MONTHLY_GRANT[a.subscriptionTier as SubscriptionTier],
      }),
    ),
  );
  for (const entry of written) await creditsGrantedEvent(tx, entry);
  return written;
}

/**
 * The user's account, locked for this transaction: opened on first use (on the default tier, or
 * `tier` when given, which also sets it), with the current period's grant made if it is missing, so
 * a balance never waits for the schedule at the turn of a month.
 */
export async function openAccount(tx: Executor, userId: string, now: Date, tier?: SubscriptionTier): Promise<CreditAccountRow> {
  await repo.insertAccounts(tx, [{ id: newId(), userId, subscriptionTier: tier ?? DEFAULT_TIER }]);
  const account = tier ? await repo.setAccountTier(tx, userId, tier) : await repo.lockAccount(tx, userId);
  if (!account) throw new Error(`no credit account for user ${userId}`);
  await grantMonthly(tx, [account], grantPeriod(now));
  return account;
}

export interface Deduction {
  entry: CreditEntryView;
  balance: number;
  /** True when the reason and reference were deducted before: `entry` is that deduction, nothing more was taken. */
  repeated: boolean;
}

/**
 * Deducts in the caller's transaction: once per (user, reason, reference) when a reference is
 * given; INSUFFICIENT_CREDITS (402) when the balance is smaller, which rolls the caller's
 * transaction back.
 */
export async function deductInTransaction(
  tx: Executor,
  userId: string,
  input: { amount: number; reason: DeductionReason; referenceId: string | null },
  now = new Date(),
): Promise<Deduction> {
  const account = await openAccount(tx, userId, now);
  if (input.referenceId !== null) {
    const first = await repo.findEntryByReference(tx, userId, input.reason, input.referenceId);
    if (first) return { entry: first, balance: await repo.balanceOf(tx, account.id), repeated: true };
  }
  const balance = await repo.balanceOf(tx, account.id);
  if (balance < input.amount) {
    throw new ApiError(
      'INSUFFICIENT_CREDITS',
      `this costs ${input.amount} credit${input.amount === 1 ? '' : 's'} and the balance is ${balance}`,
    );
  }
  const [entry] = await repo.insertTransactions(tx, [newTransaction(account, { ...input, note: null, amount: -input.amount })]);
  // The account's lock serialises every deduction of this user, so no twin can have come first.
  if (!entry) throw new Error(`the deduction ${input.reason} ${input.referenceId} of user ${userId} was written concurrently`);
  return { entry, balance: balance - input.amount, repeated: false };
}

/** POST /api/credits: the caller deducts from their own balance. */
export function deduct(ctx: Db, actor: Actor, input: { amount: number; reason: DeductionReason; referenceId: string | null }) {
  return ctx.db.transaction((tx) => deductInTransaction(tx, actor.userId, input));
}

/** GET /api/credits: the balance, the tier and its grant. */
export async function getCredits(ctx: Db, actor: Actor, now = new Date()) {
  return ctx.db.transaction(async (tx) => {
    const account = await openAccount(tx, actor.userId, now);
    return presentCredits(account, await repo.balanceOf(tx, account.id), now);
  });
}

/** The caller's ledger entries, newest first: `rows` holds limit + 1 (for paging). */
export async function listEntries(ctx: Db, actor: Actor, page: { limit: number; beforeId?: string }) {
  return { rows: await repo.listEntries(ctx.db, actor.userId, page), present: presentCreditEntry };
}

/**
 * Called inside the transaction that shares a party's contact details, before anything is
 * written: an introduction costs PRICE.intro_deduction, once per negotiation and party. Too small a
 * balance throws 402, and the transaction rolls back: nothing is shared.
 */
export async function chargeForContactShare(tx: Executor, input: { userId: string; negotiationId: string }): Promise<void> {
  const reason = 'intro_deduction';
  await deductInTransaction(tx, input.userId, { amount: PRICE[reason], reason, referenceId: introReference(input.negotiationId) });
}

/**
 * Called inside the transaction that shortlists an application (or invites a worker, which
 * shortlists at once): a match costs the gig's client PRICE.match_deduction, once per application.
 * Too small a balance throws 402 and nothing is shortlisted.
 */
export async function chargeForMatch(tx: Executor, input: { clientUserId: string; applicationId: string }): Promise<void> {
  const reason = 'match_deduction';
  await deductInTransaction(tx, input.clientUserId, { amount: PRICE[reason], reason, referenceId: matchReference(input.applicationId) });
}

/** An operator's grant (the CLI), with `credits.granted`; every call grants. */
export async function grantCredits(ctx: Db, userId: string, amount: number, note: string | null, now = new Date()) {
  return ctx.db.transaction(async (tx) => {
    const account = await openAccount(tx, userId, now);
    const [entry] = await repo.insertTransactions(tx, [
      newTransaction(account, { reason: 'operator_grant', referenceId: null, note, amount }),
    ]);
    await creditsGrantedEvent(tx, entry!);
    return { credits_balance: await repo.balanceOf(tx, account.id), entry: presentCreditEntry(entry!) };
  });
}

/**
 * Sets the user's tier (the CLI). It applies from the next monthly grant not yet made: the current
 * period's, for an account that did not have it yet, else next month's.
 */
export async function setTier(ctx: Db, userId: string, tier: SubscriptionTier, now = new Date()) {
  return ctx.db.transaction(async (tx) => {
    const account = await openAccount(tx, userId, now, tier);
    return presentCredits(account, await repo.balanceOf(tx, account.id), now);
  });
}

/**
 * The monthly-grant job: every account without the grant of the current period gets it, in
 * batches of short transactions. However often it runs, and in however many processes at once, an
 * account gets one grant per period (the ledger's unique key decides). A user without an account
 * yet gets the period's grant when it opens, at their first use of credits: the job never writes
 * for users who have not used credits.
 */
export async function grantMonthlyCredits(ctx: Db, now = new Date(), batch = 200): Promise<number> {
  const period = grantPeriod(now);
  let granted = 0;
  for (let afterId: string | undefined; ; ) {
    const accounts = await repo.accountsWithoutGrant(ctx.db, period, batch, afterId);
    if (!accounts.length) return granted;
    granted += await ctx.db.transaction(async (tx) => (await grantMonthly(tx, accounts, period)).length);
    if (accounts.length < batch) return granted;
    afterId = accounts[accounts.length - 1]!.id;
  }
}
