// Credits as the API shows them (schemas Credits, CreditEntry, CreditDeduction in openapi.yaml).
import type { CreditAccountRow, CreditEntryView } from '../../db/repositories/credits.ts';
import { MONTHLY_GRANT, nextPeriodStart, type SubscriptionTier } from '../domain/credits.ts';
import { isoTimestamp } from './timestamps.ts';

export function presentCreditEntry(e: CreditEntryView) {
  return {
    id: e.id,
    transaction_id: e.transactionId,
    amount: e.amount,
    reason: e.reason,
    reference_id: e.referenceId,
    note: e.note,
    created_at: isoTimestamp(e.createdAt),
  };
}

export function presentCredits(account: CreditAccountRow, balance: number, now: Date) {
  // A user's account always has a tier (only the platform's has none).
  const tier = account.subscriptionTier as SubscriptionTier;
  return {
    credits_balance: balance,
    subscription_tier: tier,
    monthly_grant: MONTHLY_GRANT[tier],
    next_grant_at: isoTimestamp(nextPeriodStart(now)),
  };
}

export function presentDeduction(d: { entry: CreditEntryView; balance: number; repeated: boolean }) {
  return { credits_balance: d.balance, entry: presentCreditEntry(d.entry), repeated: d.repeated };
}
