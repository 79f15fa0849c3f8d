// Idempotency-Key on every POST, with Stripe's semantics (docs/architecture.md §3): the same key,
// caller, route and body within 24 h replays the first response; another body gets 422; a request
// still running gets 409. Validation and authentication failures are not recorded; 5xx are
// forgotten. The record commits in the same transaction as the request's effects.
import { createHash } from 'node:crypto';
import { stringify as stableStringify } from 'safe-stable-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { completeKey, ensureKeyRow, isExpired, lockKey, releaseKey, takeKey } from '../../db/repositories/idempotency.ts';
import { openTransaction, runInTransaction, type OpenTransaction } from '../../db/request-transaction.ts';
import { ApiError, conflict, validationFailed } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds, and the transaction its effects and record commit in. */
    idempotency?: { userId: string; key: string; transaction: OpenTransaction };
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

/**
 * The request's transaction runs from preHandler to onSend: the handler's effects (through the
 * ambient database handle, db/request-transaction.ts) and the key's record commit together, so a
 * crash anywhere before the commit leaves neither, and a retry then runs for the first time.
 */
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
    await ensureKeyRow(db, userId, key, hash);
    const open = await openTransaction(db);
    let existing: Awaited<ReturnType<typeof lockKey>>;
    try {
      existing = await lockKey(open.tx, userId, key);
    } catch (err) {
      await open.rollback();
      throw err;
    }
    // Held by a request still running; gone: forgotten a moment ago by a request that failed.
    if (existing === 'held' || !existing) {
      await open.rollback();
      throw conflict('a request with this Idempotency-Key is still in progress; retry later');
    }
    // In flight but unlocked: its request died before committing anything. Expired: free again.
    if (existing.state !== 'completed' || isExpired(existing)) {
      await takeKey(open.tx, userId, key, hash).catch(async (err: unknown) => {
        await open.rollback();
        throw err;
      });
      request.idempotency = { userId, key, transaction: open };
      return;
    }
    await open.rollback();
    if (existing.requestHash !== hash) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request; use a new key');
    }
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
    const { userId, key, transaction } = claim;
    const status = reply.statusCode;
    // A 400 from the handler is validation too (a rule the schema cannot say): not recorded, so
    // the corrected request may reuse the key; nor is a 5xx. Neither keeps anything it did.
    if (status >= 500 || status === 400 || typeof payload !== 'string') {
      await transaction.rollback();
      await releaseKey(db, userId, key);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    const response = {
      status,
      // Responses that show a secret once (a new API key) are remembered as done, without the body.
      body: request.routeOptions.config.secretResponse && status < 300 ? null : payload,
      contentType: typeof contentType === 'string' ? contentType : null,
    };
    if (status < 400) {
      // The effects and the record commit together; a failed commit becomes this request's 500.
      await completeKey(transaction.tx, userId, key, response);
      await transaction.commit();
    } else {
      // An error changed nothing (a failed statement may even have ended the transaction): roll
      // back, and record the answer on its own so that a retry gets the same one.
      await transaction.rollback();
      await completeKey(db, userId, key, response);
    }
    return payload;
  }

  /** A request that ends without a response (the client went away early) keeps nothing. */
  async function onResponse(request: FastifyRequest) {
    const claim = request.idempotency;
    if (!claim) return;
    request.idempotency = undefined;
    await claim.transaction.rollback();
    await releaseKey(db, claim.userId, claim.key);
  }

  return { preHandler, onSend, onResponse };
}

type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** Runs the handler inside its request's transaction, when it has one. */
export function withRequestTransaction(handler: RouteHandler): RouteHandler {
  return (request, reply) => {
    const transaction = request.idempotency?.transaction;
    return transaction ? runInTransaction(transaction.tx, () => handler(request, reply)) : handler(request, reply);
  };
}
