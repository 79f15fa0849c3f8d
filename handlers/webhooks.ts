// Webhook endpoints: register, list, change, delete, rotate the secret, test, the attempts,
// redeliver and replay. API keys and browser sessions may both manage them. The rules live in
// src/services/webhooks.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import * as webhooks from '../src/services/webhooks.ts';
import { presentWebhookDelivery, presentWebhookEndpoint, presentWebhookEndpointWithSecret } from '../src/presenters/webhooks.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../src/http/pagination.ts';

type WebhookOperations =
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'rotateWebhookSecret'
  | 'testWebhookEndpoint'
  | 'listWebhookDeliveries'
  | 'redeliverWebhook'
  | 'replayWebhookDeliveries';

export function webhookHandlers(): Handlers<WebhookOperations> {
  return {
    async listWebhookEndpoints(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await webhooks.listWebhookEndpoints(ctx, actorOf(request), {
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, presentWebhookEndpoint);
    },

    async createWebhookEndpoint(request, reply, op) {
      const { url, description, event_types } = request.body;
      const endpoint = await webhooks.checkEndpoint(op.ctx, { url, description, eventTypes: event_types }, op.outside);
      reply.code(201);
      return op.final(async (ctx) =>
        presentWebhookEndpointWithSecret(await webhooks.createWebhookEndpoint(ctx, actorOf(request), endpoint)),
      );
    },

    async getWebhookEndpoint(request, _reply, { ctx }) {
      return presentWebhookEndpoint(await webhooks.getWebhookEndpoint(ctx, actorOf(request), request.params.id));
    },

    async updateWebhookEndpoint(request, _reply, { ctx }) {
      const { url, description, event_types, enabled } = request.body;
      const row = await webhooks.updateWebhookEndpoint(ctx, actorOf(request), request.params.id, {
        url,
        description,
        eventTypes: event_types,
        enabled,
      });
      return presentWebhookEndpoint(row);
    },

    async deleteWebhookEndpoint(request, reply, { ctx }) {
      await webhooks.deleteWebhookEndpoint(ctx, actorOf(request), request.params.id);
      return reply.code(204).send();
    },

    async rotateWebhookSecret(request, _reply, { ctx }) {
      return presentWebhookEndpointWithSecret(await webhooks.rotateWebhookSecret(ctx, actorOf(request), request.params.id));
    },

    async testWebhookEndpoint(request, _reply, op) {
      const test = await webhooks.sendTestDelivery(op.ctx, actorOf(request), request.params.id, op.outside);
      return op.final(async (ctx) => presentWebhookDelivery(await webhooks.recordTestDelivery(ctx, test)));
    },

    async listWebhookDeliveries(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await webhooks.listWebhookDeliveries(ctx, actorOf(request), request.params.id, {
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, presentWebhookDelivery);
    },

    async redeliverWebhook(request, reply, { ctx }) {
      const queued = await webhooks.redeliver(ctx, actorOf(request), request.params.id, request.params.deliveryId);
      reply.code(202);
      return queued;
    },

    async replayWebhookDeliveries(request, reply, { ctx }) {
      const since = new Date(request.body.since);
      const queued = await webhooks.replayFailed(ctx, actorOf(request), request.params.id, since);
      reply.code(202);
      return queued;
    },
  };
}
