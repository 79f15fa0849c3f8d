// What the payment provider reports (Stripe webhooks, or the sandbox's own pages), applied once
// per provider event id: a redelivery is acknowledged and changes nothing.
import type { Context } from '../context.ts';
import { findPaymentAccountByAccountId, firstDelivery } from '../../db/repositories/payment-accounts.ts';
import type { ProviderEvent } from '../payments/provider.ts';
import { workerVerified } from './contracts.ts';
import { paymentFailed, paymentSucceeded } from './milestones.ts';

/**
 * `applied`: acted on (or it concerned something of ours already in that state); `duplicate`: this
 * event id was handled before; `ignored`: a type we do not act on, an account not verified yet, or
 * an account or payment that is not ours (another integration on the same Stripe account).
 */
export type ProviderEventOutcome = 'applied' | 'duplicate' | 'ignored';

export async function applyProviderEvent(ctx: Pick<Context, 'db' | 'payments'>, event: ProviderEvent): Promise<ProviderEventOutcome> {
  const provider = ctx.payments.name;
  return ctx.db.transaction(async (tx) => {
    if (!(await firstDelivery(tx, provider, event.eventId, event.type))) return 'duplicate';
    switch (event.type) {
      case 'account.updated':
        if (!event.verified || !(await findPaymentAccountByAccountId(tx, provider, event.accountId))) return 'ignored';
        await workerVerified(tx, provider, event.accountId);
        return 'applied';
      case 'payment.succeeded':
        return (await paymentSucceeded(tx, event)) ? 'applied' : 'ignored';
      case 'payment.failed':
        return (await paymentFailed(tx, event)) ? 'applied' : 'ignored';
      case 'ignored':
        return 'ignored';
    }
  });
}
