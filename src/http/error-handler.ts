// One error handler for everything, Fastify's own errors included: the envelope, a precise code,
// and never an internal detail on a 5xx (docs/architecture.md §3).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, EXPECTED_5XX, envelope, type ErrorCode, type Issue } from '../errors.ts';
import { issuesFromAjv } from './validation.ts';

/** Fastify's own error codes mapped to ours. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

const byStatus: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

interface Classified {
  status: number;
  code: ErrorCode;
  message: string;
  issues: Issue[];
}

function classify(error: FastifyError & { validationContext?: string }): Classified {
  if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message, issues: error.issues };
  if (error.validation) {
    const issues = issuesFromAjv(error.validation as never, error.validationContext);
    const message = issues.map((i) => `${i.path} ${i.message}`).join('; ') || 'the request is invalid';
    return { status: 400, code: 'VALIDATION_FAILED', message, issues };
  }
  const mapped =
    (error.code && fastifyCodes[error.code]) || (error.statusCode && error.statusCode < 500 ? byStatus[error.statusCode] : undefined);
  if (mapped) {
    const status = mapped === 'VALIDATION_FAILED' ? 400 : (error.statusCode ?? 400);
    const issues = mapped === 'VALIDATION_FAILED' ? [{ path: 'body', message: error.message }] : [];
    return { status, code: mapped, message: error.message, issues };
  }
  return { status: 500, code: 'INTERNAL', message: 'internal error', issues: [] };
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const c = classify(error);
  // Fastify parses the body even for an unknown route: the missing route is the real answer.
  if (request.is404 && c.status < 500) return notFoundHandler(request, reply);
  if (c.code === 'INTERNAL') {
    request.log.error({ err: error }, 'request failed');
    c.message = `internal error; quote request id ${request.id} when reporting it`;
  } else if (c.status >= 500 && !EXPECTED_5XX.has(c.code)) {
    // Our own ApiErrors (e.g. PAYMENT_PROVIDER_ERROR) carry messages we wrote; the cause stays in the log.
    request.log.error({ err: error }, c.message);
  } else if (c.status >= 500) {
    // A refusal of this server's setup (no language model): expected, so no stack trace.
    request.log.warn({ code: c.code, status: c.status }, c.message);
  } else {
    request.log.info({ code: c.code, status: c.status }, c.message);
  }
  if (c.code === 'RATE_LIMITED' && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  return reply.code(c.status).send(envelope(c.code, c.message, c.issues));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(envelope('NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`));
}

/**
 * Errors Fastify raises before it routes a request (a path that is not valid percent-encoding, a
 * path parameter over maxParamLength) bypass the error handler: the envelope too, as a 400 on the path.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id); // no onRequest hook runs for these
  if (error.code !== 'FST_ERR_BAD_URL' && error.code !== 'FST_ERR_MAX_PARAM_LENGTH') return errorHandler(error, request, reply);
  request.log.info({ code: 'VALIDATION_FAILED', status: 400 }, error.message);
  return reply.code(400).send(envelope('VALIDATION_FAILED', error.message, [{ path: 'path', message: error.message }]));
}
