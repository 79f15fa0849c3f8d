// A contract waits for its worker's identity checks until the provider says they passed, normally
// by webhook (account.updated). Webhooks arrive late or not at all (an endpoint down for longer
// than Stripe retries, a secret rotated wrongly): reconciliation asks the provider directly about
// the accounts whose contracts have waited a while, and applies what it says through the same
// workerVerified the webhook uses. Safe to run anywhere, any number of times.
import type { Context } from '../context.ts';
import { accountsAwaitingKyc } from '../../db/repositories/payment-accounts.ts';
import { workerVerified } from './contracts.ts';

/** How long a contract waits for the webhook before the provider is asked. */
export const KYC_WEBHOOK_GRACE_MS = 2 * 60_000;

export interface KycReconcileResult {
  checked: number;
  activated: number;
  failed: number;
}

export async function reconcileKyc(
  ctx: Pick<Context, 'db' | 'payments' | 'log'>,
  options: { now?: Date; batch?: number } = {},
): Promise<KycReconcileResult> {
  const result: KycReconcileResult = { checked: 0, activated: 0, failed: 0 };
  // The sandbox verifies through its own pages, in the request: nothing to miss, nothing to ask.
  if (ctx.payments.name === 'sandbox') return result;
  const since = new Date((options.now ?? new Date()).getTime() - KYC_WEBHOOK_GRACE_MS);
  const accounts = await accountsAwaitingKyc(ctx.db, ctx.payments.name, since, options.batch ?? 100);
  for (const { accountId, verified } of accounts) {
    try {
      result.checked++;
      if (!verified && !(await ctx.payments.getAccount(accountId)).verified) continue;
      const activated = await ctx.db.transaction((tx) => workerVerified(tx, ctx.payments.name, accountId));
      result.activated += activated.length;
      if (activated.length)
        ctx.log.warn({ accountId, contracts: activated.map((c) => c.id) }, 'KYC reconciled: contracts activated without their webhook');
    } catch (err) {
      result.failed++;
      ctx.log.error({ err, accountId }, 'KYC reconciliation could not check an account; it is asked again next time');
    }
  }
  return result;
}
