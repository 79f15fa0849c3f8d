// Every five minutes: contracts whose KYC webhook is late or lost are checked with the provider
// (src/services/kyc-reconcile.ts).
import { reconcileKyc } from '../src/services/kyc-reconcile.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { KYC_RECONCILE_QUEUE } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function kycReconcileJob(ctx: Context): JobDefinition {
  return {
    name: KYC_RECONCILE_QUEUE,
    // Up to 100 accounts, each one provider call (10 s time-out, one retry).
    expireInSeconds: 600,
    cron: '*/5 * * * *',
    async handler() {
      const result = await reconcileKyc(ctx);
      if (result.checked) ctx.log.info(result, 'KYC reconciliation done');
    },
  };
}
