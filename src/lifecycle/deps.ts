// What the contract lifecycle needs from the running app.
import type { PgBoss } from 'pg-boss';
import type { Db } from '../../db/client.ts';
import type { PaymentProvider } from '../payments/provider.ts';

export interface LifecycleDeps {
  db: Db;
  payments: PaymentProvider;
  boss: PgBoss;
  publicUrl: string;
  /** How long both owners have to approve a contract (CONTRACT_APPROVAL_TTL). */
  approvalTtlMs: number;
  /** The length of one payout-delay day in seconds (PAYOUT_DAY_SECONDS, 86400 unless shortened). */
  payoutDaySeconds: number;
}

/** The lifecycle's dependencies from the app's context. */
export function lifecycleDeps(ctx: { db: Db; payments: PaymentProvider; jobs: { boss: PgBoss }; config: { publicUrl: string; contractApprovalTtlMs: number; payoutDaySeconds: number } }): LifecycleDeps {
  return {
    db: ctx.db,
    payments: ctx.payments,
    boss: ctx.jobs.boss,
    publicUrl: ctx.config.publicUrl,
    approvalTtlMs: ctx.config.contractApprovalTtlMs,
    payoutDaySeconds: ctx.config.payoutDaySeconds,
  };
}
