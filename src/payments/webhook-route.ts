// POST /api/stripe/webhook: the payment provider's events. Stripe calls it and clients never do, so
// it is served beside the API but kept out of openapi.yaml, where SDK generators would offer it
// as a client call. It passes through the same parser (raw body kept for the signature), body
// validation, error envelope and address rate limit as the rest. The signature is verified over
// the raw body (a missing, wrong or stale one is 400), and each event is applied once per id.
// Handled: account.updated, payment_intent.succeeded and payment_intent.payment_failed (see
// src/services/provider-events.ts); others are acknowledged and ignored.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { ApiError } from '../errors.ts';
import { applyProviderEvent, type ProviderEventOutcome } from '../services/provider-events.ts';

export const PROVIDER_WEBHOOK_PATH = '/api/stripe/webhook';

/** What the webhook answers: `duplicate` when the event was applied before, `ignored` when not ours or not acted on. */
export interface ProviderWebhookAck {
  received: true;
  outcome: ProviderEventOutcome;
}

const bodySchema = {
  type: 'object',
  description: 'A Stripe event object; Stripe may add fields, so others are accepted.',
  required: ['id', 'type'],
  additionalProperties: true,
  properties: {
    id: { type: 'string', maxLength: 255 },
    object: { type: 'string', maxLength: 255 },
    type: { type: 'string', maxLength: 255 },
    data: { type: 'object' },
  },
};

const headersSchema = {
  type: 'object',
  properties: { 'stripe-signature': { type: 'string', maxLength: 2000 } },
};

export function registerProviderWebhook(app: FastifyInstance, ctx: Context): void {
  app.post(
    PROVIDER_WEBHOOK_PATH,
    { config: { rawBody: true }, schema: { body: bodySchema, headers: headersSchema } },
    async (request): Promise<ProviderWebhookAck> => {
      const raw = request.rawBody;
      if (raw === undefined) throw new ApiError('INTERNAL', 'the webhook route lost its raw body');
      const signature = request.headers['stripe-signature'];
      const event = ctx.payments.parseWebhook(raw, typeof signature === 'string' ? signature : undefined);
      const outcome = await applyProviderEvent(ctx, event);
      request.log.info({ eventId: event.eventId, type: event.type, outcome }, 'payment provider event');
      return { received: true, outcome };
    },
  );
}
