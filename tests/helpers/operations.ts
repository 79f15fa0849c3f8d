// Generic access to the operations of openapi.yaml, for the tests generated from it (the
// authorization matrix and the fuzzer): their parameters and bodies, a raw request to any of them
// whose response is checked against the spec, and a fingerprint of the database to tell whether a
// request changed anything.
import { sql } from 'drizzle-orm';
import { listOperations, loadSpec, type OpenApiDocument, type SpecOperation } from '../../src/spec.ts';
import type { TestServer } from './server.ts';
import { assertMatchesSpec } from './spec-validator.ts';
import { uploadFieldsOf } from '../../src/http/uploads.ts';

export const spec = loadSpec();
export const operations: SpecOperation[] = listOperations(spec);
export const operationIds = new Set(operations.map((o) => o.operationId));

/** Follows local `$ref`s ('#/components/schemas/Gig') to what they name. */
export function deref<T = OpenApiDocument>(value: T | { $ref: string } | undefined): T {
  let v: unknown = value;
  for (let i = 0; i < 20 && v && typeof v === 'object' && '$ref' in v; i++) {
    v = (v as { $ref: string }).$ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, p) => (node as Record<string, unknown> | undefined)?.[p], spec);
  }
  return v as T;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: OpenApiDocument;
}

/** The operation's parameters (the path item's and its own), references followed. */
export function parametersOf(op: SpecOperation): Parameter[] {
  const list = [...(spec.paths[op.path].parameters ?? []), ...(op.operation.parameters ?? [])].map((p) => deref<OpenApiDocument>(p));
  return list.map((p) => ({ name: p.name, in: p.in, required: p.required === true || p.in === 'path', schema: p.schema ?? {} }));
}

/** The operation's JSON request body: its schema, whether it is required, and its example. */
export function jsonBodyOf(op: SpecOperation): { schema: OpenApiDocument; required: boolean; example: unknown } | undefined {
  const body = deref<OpenApiDocument>(op.operation.requestBody);
  const media = body?.content?.['application/json'];
  if (!media) return undefined;
  const example =
    media.example !== undefined ? media.example : deref<OpenApiDocument>(Object.values(media.examples ?? {})[0] as never)?.value;
  return { schema: media.schema ?? {}, required: body.required === true, example };
}

/** Scheme names the operation accepts (any alternative). */
export function schemesOf(op: SpecOperation): Set<string> {
  return new Set(op.security.flatMap((s) => Object.keys(s)));
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const xApiKey = (key: string) => ({ 'x-api-key': key });
/** Well-formed (42 base62 characters after the prefix), but nobody's. */
export const UNKNOWN_KEY = `gm_live_${'Zq8'.repeat(14)}`;

export const isUnsafe = (op: SpecOperation) => !['get', 'head', 'options'].includes(op.method);
/** The file fields of an operation's multipart body (src/http/uploads.ts reads them so); undefined without one. */
export const uploadOf = (op: SpecOperation) => uploadFieldsOf(op.operation.requestBody, spec.components?.schemas);
export const label = (op: SpecOperation) => `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;

export interface OperationRequest {
  path?: Record<string, string>;
  /** Query parameters; an array repeats the parameter. */
  query?: Record<string, string | number | string[] | undefined>;
  headers?: Record<string, string>;
  /** A JSON value to send; `undefined` sends no body. */
  body?: unknown;
  /** Bytes to send as they are (with `headers` giving the content type, if any); wins over `body`. */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  /** A multipart/form-data body (fetch sets its content type and boundary); wins over both. */
  form?: FormData;
}

export interface OperationResponse {
  status: number;
  contentType: string | null;
  body: any;
  text: string;
}

/** The URL of a request to `op`: path parameters percent-encoded, the query in order. */
export function urlOf(server: TestServer, op: SpecOperation, request: OperationRequest): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = request.path?.[name];
    if (value === undefined) throw new Error(`${label(op)}: no value for the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(request.query ?? {}))
    for (const one of [v].flat()) if (one !== undefined) query.append(k, String(one));
  const qs = query.toString();
  return `${server.url}${path}${qs ? `?${qs}` : ''}`;
}

/**
 * Sends a request to `op` over HTTP and checks the response against the spec (the status must be
 * declared for the operation and the body match its schema: a mismatch throws, naming both).
 */
export async function callOperation(server: TestServer, op: SpecOperation, request: OperationRequest = {}): Promise<OperationResponse> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | Uint8Array<ArrayBuffer> | FormData | undefined;
  if (request.form !== undefined) body = request.form;
  else if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(urlOf(server, op, request), { method: op.method.toUpperCase(), headers, body, redirect: 'manual' });
  const text = await res.text();
  const contentType = res.headers.get('content-type');
  let parsed: unknown = text === '' ? undefined : text;
  if (contentType?.includes('json') && text) parsed = JSON.parse(text);
  assertMatchesSpec(op.path, op.method, res.status, contentType, parsed);
  return { status: res.status, contentType, body: parsed, text };
}

/** Checks that every name in a list of exceptions or known bugs is an operation of the spec. */
export function unknownOperations(names: Iterable<string>): string[] {
  return [...names].filter((n) => !operationIds.has(n));
}

// --- the database fingerprint ---------------------------------------------------------------

/**
 * Columns left out of the fingerprint, with why. Anything else that changes in a table of the
 * `public` schema (a row added, removed or altered) changes the fingerprint.
 */
const IGNORED_COLUMNS: Record<string, string[]> = {
  // Advisory, to the minute, written after the response without being awaited (authenticate.ts):
  // a valid key's first use may land at any time around the request.
  api_keys: ['last_used_at'],
  // Set by the event relay (src/services/event-relay.ts) in the background, after the commit that
  // wrote the event: an earlier request's events may be dispatched at any time around this one.
  events: ['dispatched_at'],
  // Set by the webhook delivery job (src/services/webhooks.ts) in the background, at an attempt to
  // an endpoint of a user whose earlier request wrote an event.
  webhook_endpoints: ['failing_since'],
};

/**
 * Rows left out of the fingerprint, by table, with why: a background job may delete them at any
 * time, and none of them can come back to life, so a request that changes one still shows (it
 * leaves or joins the rows that are kept).
 */
const KEPT_ROWS: Record<string, string> = {
  // The hourly housekeeping job (at :17) deletes revoked and expired sessions.
  sessions: 'revoked_at is null and expires_at > now()',
  // The relay writes inbox messages in the background, after the commit of an earlier request's
  // events (like events.dispatched_at above); what a request may change of them is their read_at.
  notification_messages: 'read_at is not null',
  // Attempts to deliver events are written by the delivery job in the background (an earlier
  // request's event, its retries), like dispatched_at above; test deliveries, which a request
  // writes, are kept.
  webhook_deliveries: "event_type = 'webhook.test'",
};

export type Fingerprint = Record<string, string>;

const rowsOf = (result: unknown): Record<string, unknown>[] =>
  Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows;

let fingerprintQuery: ReturnType<typeof sql.raw> | undefined;

/**
 * Every table of the application (schema `public`; pg-boss keeps its own schema): its row count
 * and an md5 of all its rows. Tables are discovered, so a table added later is covered too.
 */
export async function fingerprint(db: TestServer['db']): Promise<Fingerprint> {
  if (!fingerprintQuery) {
    const tables = rowsOf(
      await db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
      ),
    ).map((r) => String(r.table_name));
    if (tables.length < 5) throw new Error(`the fingerprint found only these tables: ${tables.join(', ')}`);
    const parts = tables.map((t) => {
      const row = `(to_jsonb(x) ${(IGNORED_COLUMNS[t] ?? []).map((c) => `- '${c}'`).join(' ')})::text`;
      return `select '${t}' as t, count(*)::text || ':' || coalesce(md5(string_agg(${row}, ',' order by ${row})), '-') as f from "${t}" x${KEPT_ROWS[t] ? ` where ${KEPT_ROWS[t]}` : ''}`;
    });
    fingerprintQuery = sql.raw(parts.join(' union all '));
  }
  const out: Fingerprint = {};
  for (const r of rowsOf(await db.execute(fingerprintQuery))) out[String(r.t)] = String(r.f);
  return out;
}

/**
 * Fingerprints around requests that must change nothing, taking one per request instead of two:
 * the one taken after a request that changed nothing is the next one's before. That holds because
 * a fingerprint leaves out what the server writes in the background (IGNORED_COLUMNS, KEPT_ROWS).
 */
export class UnchangedChecks {
  #settled: Fingerprint | undefined;
  readonly #db: TestServer['db'];
  constructor(db: TestServer['db']) {
    this.#db = db;
  }
  /** The fingerprint before a request. */
  async before(): Promise<Fingerprint> {
    const print = this.#settled ?? (await fingerprint(this.#db));
    this.#settled = undefined;
    return print;
  }
  /** The tables the request changed since `before` (none, kept for the next request, when it changed nothing). */
  async changedSince(before: Fingerprint): Promise<string[]> {
    const after = await fingerprint(this.#db);
    const changed = changedTables(before, after);
    if (changed.length === 0) this.#settled = after;
    return changed;
  }
}

/** The tables whose fingerprint differs, e.g. `["gigs", "events"]`. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((t) => before[t] !== after[t]).sort();
}
