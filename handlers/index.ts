// Every operation's handler, keyed by operationId. buildApp checks this against the spec at start.
import type { Context } from '../src/context.ts';
import { healthHandlers } from './health.ts';
import { keyHandlers } from './keys.ts';
import { profileHandlers } from './profiles.ts';
import { resumeHandlers } from './resumes.ts';
import { gigHandlers } from './gigs.ts';
import { applicationHandlers } from './applications.ts';
import { negotiationHandlers } from './negotiations.ts';
import { contractHandlers } from './contracts.ts';
import { discoveryHandlers } from './discovery.ts';
import { eventHandlers } from './events.ts';
import { notificationHandlers } from './notifications.ts';
import { webhookHandlers } from './webhooks.ts';
import { vouchHandlers } from './vouches.ts';
import { accountHandlers } from './account.ts';
import { reviewHandlers } from './reviews.ts';
import { creditHandlers } from './credits.ts';
import { disputeHandlers } from './disputes.ts';

export function allHandlers(ctx: Context) {
  return {
    ...healthHandlers(ctx),
    ...keyHandlers(ctx),
    ...profileHandlers(ctx),
    ...resumeHandlers(ctx),
    ...gigHandlers(ctx),
    ...applicationHandlers(ctx),
    ...negotiationHandlers(ctx),
    ...contractHandlers(ctx),
    ...discoveryHandlers(ctx),
    ...eventHandlers(ctx),
    ...notificationHandlers(ctx),
    ...webhookHandlers(ctx),
    ...vouchHandlers(ctx),
    ...accountHandlers(ctx),
    ...reviewHandlers(ctx),
    ...creditHandlers(ctx),
    ...disputeHandlers(ctx),
  };
}
