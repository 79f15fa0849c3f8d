// Workers' accounts at the payment provider, and provider events already handled.
import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { contracts, paymentAccounts, providerEvents } from '../schema.ts';
import type { Executor } from '../client.ts';

export type PaymentAccountRow = typeof paymentAccounts.$inferSelect;

export async function getPaymentAccount(db: Executor, userId: string, provider: string): Promise<PaymentAccountRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAccounts)
    .where(and(eq(paymentAccounts.userId, userId), eq(paymentAccounts.provider, provider)))
    .limit(1);
  return row;
}

/** The account, locked for the rest of the transaction (approval and verification queue up on it). */
export async function lockPaymentAccount(tx: Executor, userId: string, provider: string): Promise<PaymentAccountRow | undefined> {
  const [row] = await tx
    .select()
    .from(paymentAccounts)
    .where(and(eq(paymentAccounts.userId, userId), eq(paymentAccounts.provider, provider)))
    .limit(1)
    .for('update');
  return row;
}

export async function findPaymentAccountByAccountId(
  db: Executor,
  provider: string,
  accountId: string,
): Promise<PaymentAccountRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentAccounts)
    .where(and(eq(paymentAccounts.provider, provider), eq(paymentAccounts.accountId, accountId)))
    .limit(1);
  return row;
}

/** Records the account (the provider call is idempotent per user, so concurrent callers agree). */
export async function savePaymentAccount(db: Executor, userId: string, provider: string, accountId: string): Promise<PaymentAccountRow> {
  await db.insert(paymentAccounts).values({ userId, provider, accountId }).onConflictDoNothing();
  return (await getPaymentAccount(db, userId, provider))!;
}

/** Marks the account verified; returns the row only to the call that changed it (undefined when it already was). */
export async function markAccountVerified(tx: Executor, provider: string, accountId: string): Promise<PaymentAccountRow | undefined> {
  const [row] = await tx
    .update(paymentAccounts)
    .set({ verifiedAt: sql`now()`, updatedAt: new Date() })
    .where(
      and(eq(paymentAccounts.provider, provider), eq(paymentAccounts.accountId, accountId), sql`${paymentAccounts.verifiedAt} is null`),
    )
    .returning();
  return row;
}

/**
 * Workers' provider accounts with a contract that has waited for their KYC since before `since`:
 * what reconciliation looks at when a webhook is late or lost. `verified`: already verified here
 * (the contract missed it), so the provider need not be asked.
 */
export async function accountsAwaitingKyc(
  db: Executor,
  provider: string,
  since: Date,
  limit: number,
): Promise<{ accountId: string; verified: boolean }[]> {
  const rows = await db
    .selectDistinct({ accountId: paymentAccounts.accountId, verifiedAt: paymentAccounts.verifiedAt })
    .from(paymentAccounts)
    .innerJoin(contracts, eq(contracts.workerUserId, paymentAccounts.userId))
    .where(and(eq(paymentAccounts.provider, provider), eq(contracts.status, 'pending_freelancer_kyc'), lt(contracts.updatedAt, since)))
    .orderBy(asc(paymentAccounts.accountId))
    .limit(limit);
  return rows.map((r) => ({ accountId: r.accountId, verified: r.verifiedAt !== null }));
}

/** True the first time this provider event is seen; false for a redelivery. */
export async function firstDelivery(tx: Executor, provider: string, eventId: string, type: string): Promise<boolean> {
  const rows = await tx
    .insert(providerEvents)
    .values({ provider, eventId, type })
    .onConflictDoNothing()
    .returning({ id: providerEvents.eventId });
  return rows.length > 0;
}

/**
 * Provider events are remembered to recognise redeliveries; Stripe redelivers for up to three days
 * and can resend an event for thirty, so after that the record only takes room.
 */
export const PROVIDER_EVENT_RETENTION_DAYS = 30;

export async function deleteOldProviderEvents(db: Executor): Promise<void> {
  await db
    .delete(providerEvents)
    .where(lt(providerEvents.receivedAt, sql`now() - make_interval(days => ${PROVIDER_EVENT_RETENTION_DAYS})`));
}
