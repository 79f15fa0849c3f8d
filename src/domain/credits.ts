// Credits (docs/architecture.md §12): the subscription tiers and what each grants a month, what the
// platform charges for, and the reasons a ledger transaction may have. One credit is the unit; the
// ledger itself (double entry, append-only) is db/schema/credits.ts.
import { type DeductionReason, SUBSCRIPTION_TIERS, type SubscriptionTier } from '../../db/schema/column-values.ts';

export {
  CREDIT_REASONS,
  type CreditReason,
  DEDUCTION_REASONS,
  type DeductionReason,
  GRANT_REASONS,
  type GrantReason,
  NOTE_MAX,
  REFERENCE_ID_MAX,
  SUBSCRIPTION_TIERS,
  type SubscriptionTier,
} from '../../db/schema/column-values.ts';

export const isSubscriptionTier = (value: string): value is SubscriptionTier => (SUBSCRIPTION_TIERS as readonly string[]).includes(value);

/** Every user starts on this tier, with its grant for the month they start in. */
export const DEFAULT_TIER: SubscriptionTier = 'free';

/** Credits each tier grants per calendar month (UTC). Credits do not expire. */
export const MONTHLY_GRANT: Record<SubscriptionTier, number> = { free: 20, pro: 200, team: 1000 };

/**
 * What the platform charges, once per reference: sharing one's contact details in a negotiation
 * (an introduction), and a client shortlisting an application (a match).
 */
export const PRICE: Record<DeductionReason, number> = { intro_deduction: 2, match_deduction: 1 };

/** Bounds of the inputs (the spec says the same). */
export const DEDUCTION_MAX = 10_000;
export const OPERATOR_GRANT_MAX = 1_000_000;
/**
 * A caller's reference_id: no colon, so that it never equals a key the platform uses for its own
 * charges (`negotiation:<id>`, `application:<id>`) and a cheap deduction cannot pre-pay one.
 */
export const CALLER_REFERENCE_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;

/** The platform's own keys: one charge per negotiation (and party), one per application. */
export const introReference = (negotiationId: string) => `negotiation:${negotiationId}`;
export const matchReference = (applicationId: string) => `application:${applicationId}`;

/** The grant period a moment falls in: its calendar month in UTC, `YYYY-MM` (a monthly grant's reference). */
export function grantPeriod(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** When the next period starts (the next monthly grant is due). */
export function nextPeriodStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
