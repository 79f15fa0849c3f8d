// Every operation's handler, keyed by operationId. buildApp checks this against the spec at start.
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
import { passkeyHandlers } from './passkeys.ts';

/** Handlers close over nothing: each gets the context with its request's operation (src/http/operation.ts). */
export function allHandlers() {
  return {
    ...healthHandlers(),
    ...keyHandlers(),
    ...profileHandlers(),
    ...resumeHandlers(),
    ...gigHandlers(),
    ...applicationHandlers(),
    ...negotiationHandlers(),
    ...contractHandlers(),
    ...discoveryHandlers(),
    ...eventHandlers(),
    ...notificationHandlers(),
    ...webhookHandlers(),
    ...vouchHandlers(),
    ...accountHandlers(),
    ...reviewHandlers(),
    ...creditHandlers(),
    ...disputeHandlers(),
    ...passkeyHandlers(),
  };
}
