// Every five minutes: contracts whose KYC webhook is late or lost are checked with the provider
// (src/lifecycle/kyc-reconcile.ts).
import { reconcileKyc } from '../src/lifecycle/kyc-reconcile.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export const KYC_RECONCILE_QUEUE = 'kyc-reconcile';

export function kycReconcileJob(ctx: JobContext): JobDefinition {
  return {
    name: KYC_RECONCILE_QUEUE,
    cron: '*/5 * * * *',
    async handler() {
      const result = await reconcileKyc({ db: ctx.db, payments: ctx.payments, log: ctx.log });
      if (result.checked) ctx.log.info(result, 'KYC reconciliation done');
    },
  };
}
