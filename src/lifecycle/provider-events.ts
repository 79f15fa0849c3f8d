// What the payment provider reports (Stripe webhooks, or the sandbox's own pages), applied once
// per provider event id: a redelivery is acknowledged and changes nothing.
import type { Db } from '../../db/client.ts';
import { firstDelivery } from '../../db/repositories/payment-accounts.ts';
import type { ProviderEvent, ProviderName } from '../payments/provider.ts';
import { workerVerified } from './contracts.ts';
import { paymentFailed, paymentSucceeded } from './milestones.ts';

export type ProviderEventOutcome = 'applied' | 'duplicate' | 'ignored';

export async function applyProviderEvent(db: Db, provider: ProviderName, event: ProviderEvent): Promise<ProviderEventOutcome> {
  return db.transaction(async (tx) => {
    if (!(await firstDelivery(tx, provider, event.eventId, event.type))) return 'duplicate';
    switch (event.type) {
      case 'account.updated':
        if (!event.verified) return 'ignored';
        await workerVerified(tx, provider, event.accountId);
        return 'applied';
      case 'payment.succeeded':
        await paymentSucceeded(tx, event);
        return 'applied';
      case 'payment.failed':
        await paymentFailed(tx, event);
        return 'applied';
      case 'ignored':
        return 'ignored';
    }
  });
}
