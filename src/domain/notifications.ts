// The built-in notification channels' rules: which channels exist, which event types they can carry
// (those with a message in src/services/notification-messages.ts), and the default choice: the
// moments an owner must act on or know about.
import type { EventType } from './events.ts';

export { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../db/schema/column-values.ts';

/** Every event type a channel can carry: each has a message (and an email template). */
export const NOTIFIABLE_EVENT_TYPES = [
  'contract.created',
  'contract.updated',
  'contract.approval_requested',
  'contract.expired',
  'contract.pending_freelancer_kyc',
  'contract.active',
  'contract.cancelled',
  'milestone.funded',
  'milestone.released',
  'milestone.paid',
  'milestone.payout_failed',
  'webhook_endpoint.disabled',
  'review.published',
  'dispute.opened',
  'dispute.responded',
  'dispute.outcome_accepted',
  'dispute.resolved',
] as const satisfies readonly EventType[];
export type NotifiableEventType = (typeof NOTIFIABLE_EVENT_TYPES)[number];

/**
 * What a channel receives until its owner chooses: a contract awaiting approval (created, or
 * updated after a revision; the approval reminders follow `contract.created`), its expiry, the
 * worker's identity checks, the money moments, a webhook endpoint that stopped receiving, a
 * review of the owner made public, and the steps of a dispute the owner must answer or know the
 * end of. `contract.active` and `contract.cancelled` are there to opt into.
 */
export const DEFAULT_EVENT_TYPES: readonly NotifiableEventType[] = NOTIFIABLE_EVENT_TYPES.filter(
  (type) => type !== 'contract.active' && type !== 'contract.cancelled',
);

/** The preference that governs approval reminders (they are not events of their own). */
export const REMINDER_PREFERENCE: NotifiableEventType = 'contract.created';

export const isNotifiable = (type: string): type is NotifiableEventType => (NOTIFIABLE_EVENT_TYPES as readonly string[]).includes(type);
