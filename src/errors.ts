// Domain errors carry their API code; the error handler turns them into the envelope (docs/architecture.md §3).

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  | 'INSUFFICIENT_CREDITS'
  | 'FORBIDDEN'
  | 'PASSKEY_REQUIRED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'INVALID_STATE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'RATE_LIMITED'
  | 'PAYMENT_PROVIDER_ERROR'
  | 'RECOMMENDATION_FAILED'
  | 'RECOMMENDATION_UNAVAILABLE'
  | 'RECOMMENDATION_TIMEOUT'
  | 'INTERNAL';

export const statusOf: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  PASSKEY_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  PAYMENT_PROVIDER_ERROR: 502,
  RECOMMENDATION_FAILED: 502,
  RECOMMENDATION_UNAVAILABLE: 503,
  RECOMMENDATION_TIMEOUT: 504,
  INTERNAL: 500,
};

/**
 * 5xx answers that say what this server is set up to do (no language model configured), not that
 * something failed: the error handler logs them as warnings, without a stack trace.
 */
export const EXPECTED_5XX: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['RECOMMENDATION_UNAVAILABLE']);

export interface Issue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: Issue[];

  constructor(code: ErrorCode, message: string, issues: Issue[] = []) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = statusOf[code];
    this.issues = issues;
  }
}

export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
export const forbidden = (message: string) => new ApiError('FORBIDDEN', message);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
export const unauthenticated = (message: string) => new ApiError('UNAUTHENTICATED', message);
export const validationFailed = (path: string, message: string) =>
  new ApiError('VALIDATION_FAILED', `${path}: ${message}`, [{ path, message }]);

/** The envelope every error response carries. */
export function envelope(code: ErrorCode, message: string, issues: Issue[] = []) {
  return { error: { code, message, issues } };
}
