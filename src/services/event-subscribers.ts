// Who receives the events the relay dispatches. Webhook endpoints and the built-in notification
// channels subscribe here as they are built.
import type { Context } from '../context.ts';
import type { EventSubscriber } from './event-relay.ts';
import { notificationSubscriber } from './notifications.ts';
import { webhookSubscriber } from './webhook-delivery.ts';

export function eventSubscribers(ctx: Context): EventSubscriber[] {
  return [notificationSubscriber(ctx), webhookSubscriber(ctx)];
}
