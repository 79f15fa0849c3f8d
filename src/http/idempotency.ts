// Idempotency-Key on every POST, with Stripe's semantics (docs/architecture.md §3): the same key, caller, route
// and body within 24 h replays the first response; another body gets 422; a request still
// running gets 409. Validation and authentication failures are not recorded; 5xx are forgotten.
import { createHash } from 'node:crypto';
import { stringify as stableStringify } from 'safe-stable-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { claimKey, completeKey, releaseKey } from '../../db/repositories/idempotency.ts';
import { ApiError, conflict, validationFailed } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { userId: string; key: string };
  }
  interface FastifyContextConfig {
    /** From the spec's `x-fastify-config`: the success response shows a secret once (never stored). */
    secretResponse?: boolean;
  }
}

const HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * What makes two requests "the same": method, URL and body, the body with its keys sorted, so a
 * retry that serialises the same JSON in another order (agents do) is still the same request.
 */
function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(stableStringify(request.body ?? null) ?? 'null')
    .digest('hex');
}

export function idempotencyHooks(db: Db) {
  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== 'POST' || !request.principal) return;
    const key = request.headers[HEADER];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw validationFailed('header.idempotency-key', 'must be 1 to 255 printable ASCII characters');
    }
    const userId = request.principal.userId;
    const hash = requestHash(request);
    const claim = await claimKey(db, userId, key, hash);
    if (claim.claimed) {
      request.idempotency = { userId, key };
      return;
    }
    const existing = claim.existing;
    if (!existing) throw conflict('the Idempotency-Key is being reset; retry the request');
    if (existing.requestHash !== hash) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request; use a new key');
    }
    if (existing.state !== 'completed') throw conflict('a request with this Idempotency-Key is still in progress; retry later');
    if (existing.responseBody === null) {
      // The first response carried a secret, shown once and never stored: say it happened instead.
      throw conflict('this request already succeeded; its response held a secret that is shown only once and is not kept');
    }
    reply.code(existing.responseStatus!).header('idempotent-replayed', 'true');
    if (existing.responseContentType) reply.type(existing.responseContentType);
    return reply.send(existing.responseBody);
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    // A 400 from the handler is validation too (a rule the schema cannot say): not recorded, so
    // the corrected request may reuse the key.
    if (reply.statusCode >= 500 || reply.statusCode === 400 || typeof payload !== 'string') {
      await releaseKey(db, claim.userId, claim.key);
    } else {
      const contentType = reply.getHeader('content-type');
      // Responses that show a secret once (a new API key) are remembered as done, without the body.
      const body = request.routeOptions.config.secretResponse && reply.statusCode < 300 ? null : payload;
      await completeKey(db, claim.userId, claim.key, {
        status: reply.statusCode,
        body,
        contentType: typeof contentType === 'string' ? contentType : null,
      });
    }
    return payload;
  }

  return { preHandler, onSend };
}
