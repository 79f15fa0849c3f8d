// Idempotency-Key on every POST, with Stripe's semantics (docs/architecture.md §2): the same key,
// caller, route and body within 24 h replays the first response; another body gets 422; a request
// still running gets 409. Built as recovery points: the key is claimed in a short transaction of
// its own; an operation's outside calls record their results on the key as they return
// (src/http/operation.ts); its effects and its response commit together in its last transaction.
// No transaction is open while the handler waits on anything outside the process.
import { createHash, randomUUID } from 'node:crypto';
import { stringify as stableStringify } from 'safe-stable-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { claimKey, completeKey, type KeyClaim, releaseKey } from '../../db/repositories/idempotency.ts';
import { ApiError, conflict, validationFailed } from '../errors.ts';

/** The key a request holds while it runs. */
export interface HeldKey {
  claim: KeyClaim;
  /** Results of outside calls an earlier attempt of this request recorded, by phase. */
  phases: Record<string, unknown>;
  /** Set once the response is recorded (in the operation's last transaction, or at onSend). */
  recorded: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: HeldKey;
  }
  interface FastifyContextConfig {
    /** From the spec's `x-fastify-config`: the success response shows a secret once (never stored). */
    secretResponse?: boolean;
    /** From the spec's `x-fastify-config`: the operation calls outside the process, between its transactions. */
    outsideCalls?: boolean;
  }
}

const HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * What makes two requests "the same": method, URL and body, the body with its keys sorted, so a
 * retry that serialises the same JSON in another order (agents do) is still the same request. An
 * uploaded file (multipart, read before this hook by src/http/uploads.ts) enters as the SHA-256 of
 * its bytes (UploadedFile.toJSON): another file under the same key is another request.
 */
function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(stableStringify(request.body ?? null) ?? 'null')
    .digest('hex');
}

/** What is recorded of a response: a secret shown once is not. */
export function recordedBody(request: FastifyRequest, status: number, payload: string): string | null {
  return request.routeOptions.config.secretResponse && status < 300 ? null : payload;
}

export function idempotencyHooks(db: Db, lockSeconds: number) {
  async function preHandler(request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== 'POST' || !request.principal) return;
    const key = request.headers[HEADER];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw validationFailed('header.idempotency-key', 'must be 1 to 255 printable ASCII characters, without spaces');
    }
    const claim = { userId: request.principal.userId, key, token: randomUUID() };
    const outcome = await claimKey(db, { ...claim, requestHash: requestHash(request), lockSeconds });
    switch (outcome.kind) {
      case 'claimed':
        request.idempotency = { claim, phases: outcome.phases, recorded: false };
        return;
      case 'busy':
        reply.header('retry-after', String(outcome.retryAfterSeconds));
        throw conflict('a request with this Idempotency-Key is still in progress; retry later');
      case 'reused':
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request; use a new key');
      case 'replay': {
        const { response } = outcome;
        if (response.body === null) {
          // The first response carried a secret, shown once and never stored: say it happened instead.
          throw conflict('this request already succeeded; its response held a secret that is shown only once and is not kept');
        }
        reply.code(response.status).header('idempotent-replayed', 'true');
        if (response.contentType) reply.type(response.contentType);
        return reply.send(response.body);
      }
    }
  }

  /**
   * A response not recorded in the operation's last transaction: an error, which changed nothing
   * (that transaction rolled back), is recorded on its own so that a retry gets the same answer;
   * a 400 (the corrected request may reuse the key) and a 5xx are not recorded, and the key is let go.
   * onSend runs also when the client has gone away; a request that never gets here (its process
   * died) holds the key until IDEMPOTENCY_LOCK_TIMEOUT, and a retry then resumes it.
   */
  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const held = request.idempotency;
    if (!held || held.recorded) return payload;
    held.recorded = true;
    const status = reply.statusCode;
    if (status >= 500 || status === 400 || typeof payload !== 'string') {
      await releaseKey(db, held.claim);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    await completeKey(db, held.claim, {
      status,
      body: recordedBody(request, status, payload),
      contentType: typeof contentType === 'string' ? contentType : null,
    });
    return payload;
  }

  return { preHandler, onSend };
}
