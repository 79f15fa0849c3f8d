// The payment provider's webhook: verified on the raw body, applied once per event id.
import type { Context } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { ApiError } from '../src/errors.ts';
import { applyProviderEvent } from '../src/services/provider-events.ts';

export function paymentHandlers(ctx: Context): Handlers<'stripeWebhook'> {
  return {
    async stripeWebhook(request) {
      const raw = request.rawBody;
      if (raw === undefined) throw new ApiError('INTERNAL', 'the webhook route lost its raw body');
      const signature = request.headers['stripe-signature'];
      const event = ctx.payments.parseWebhook(raw, typeof signature === 'string' ? signature : undefined);
      const outcome = await applyProviderEvent(ctx, event);
      request.log.info({ eventId: event.eventId, type: event.type, outcome }, 'payment provider event');
      return { received: true as const, outcome };
    },
  };
}
