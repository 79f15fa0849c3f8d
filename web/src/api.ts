// The dashboard's one way to the JSON API: openapi-fetch typed from the spec's generated `paths`,
// so every request and response here follows openapi.yaml (and breaks the typecheck when it
// changes). Requests are same-origin with the session cookie; the server's same-origin check
// accepts them. Types are taken by path (`paths['/api/contracts/{id}']`), never by schema name.
import createClient from 'openapi-fetch';
import type { paths } from '../../src/generated/api.d.ts';

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's 200 (or 201) response. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer S }
    ? Json<S>
    : R extends { 201: infer S }
      ? Json<S>
      : never
  : never;

export type Contract = Ok<'/api/contracts/{id}', 'get'>;
export type Milestone = Contract['milestones'][number];
export type ContractStatus = Contract['status'];
export type ApiKey = Ok<'/api/keys', 'get'>['data'][number];
export type Me = Ok<'/api/profile/me', 'get'>;

/** One invalid field of a `VALIDATION_FAILED` refusal: where (`body.email`) and why. */
export interface ApiIssue {
  path: string;
  message: string;
}

/** An API error: the status and the envelope's code, message and issues, which the page shows as they are. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: readonly ApiIssue[];
  constructor(status: number, code: string, message: string, issues: readonly ApiIssue[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}

function envelope(error: unknown): { code?: string; message?: string; issues?: ApiIssue[] } {
  if (error && typeof error === 'object' && 'error' in error) {
    const inner = (error as { error: unknown }).error;
    if (inner && typeof inner === 'object') return inner as { code?: string; message?: string; issues?: ApiIssue[] };
  }
  return {};
}

/** Unwraps an openapi-fetch result: its data, or an ApiError with the API's `error.message`. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server could not be reached. Check your connection and try again.');
  }
  if (result.error !== undefined || !result.response.ok) {
    const { code, message, issues } = envelope(result.error);
    throw new ApiError(
      result.response.status,
      code ?? 'HTTP',
      message ?? `The server answered ${result.response.status}.`,
      Array.isArray(issues) ? issues : [],
    );
  }
  return result.data as T;
}

/** Every page of a cursor-paged list (at most `maxPages` of 100). */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ data: T[]; next_cursor: string | null }>,
  maxPages = 20,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const next = await page(cursor);
    items.push(...next.data);
    if (!next.next_cursor) break;
    cursor = next.next_cursor;
  }
  return items;
}

/** Every contract of the caller in one status (the Overview's lists). */
export function contractsIn(status: ContractStatus): Promise<Contract[]> {
  return allPages((cursor) => unwrap(api.GET('/api/contracts', { params: { query: { status, limit: 100, cursor } } })));
}
