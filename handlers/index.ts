// Every operation's handler, keyed by operationId. buildApp checks this against the spec at start.
import type { Context } from '../src/context.ts';
import { healthHandlers } from './health.ts';
import { keyHandlers } from './keys.ts';
import { profileHandlers } from './profiles.ts';
import { gigHandlers } from './gigs.ts';
import { applicationHandlers } from './applications.ts';
import { negotiationHandlers } from './negotiations.ts';
import { contractHandlers } from './contracts.ts';
import { paymentHandlers } from './payments.ts';
import { discoveryHandlers } from './discovery.ts';
import { eventHandlers } from './events.ts';
import { notificationHandlers } from './notifications.ts';
import { webhookHandlers } from './webhooks.ts';

export function allHandlers(ctx: Context) {
  return {
    ...healthHandlers(ctx),
    ...keyHandlers(ctx),
    ...profileHandlers(ctx),
    ...gigHandlers(ctx),
    ...applicationHandlers(ctx),
    ...negotiationHandlers(ctx),
    ...contractHandlers(ctx),
    ...paymentHandlers(ctx),
    ...discoveryHandlers(ctx),
    ...eventHandlers(ctx),
    ...notificationHandlers(ctx),
    ...webhookHandlers(ctx),
  };
}
