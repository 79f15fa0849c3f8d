// Request validation with Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1), and the mapping of
// Ajv's errors to the envelope's `issues`, each naming the field.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { ApiError, validationFailed, type Issue } from '../errors.ts';
import { UUID_PATTERN } from '../ids.ts';
import { TEXT_PATTERN_MEANS } from './text-patterns.ts';

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({
    strict: false, // the spec carries `example`s and other annotations
    allErrors: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
  });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // ajv-formats also takes `urn:uuid:...`, which Postgres's uuid type refuses (a 500): the plain form only.
  ajv.addFormat('uuid', UUID_PATTERN);
  // RFC 3339 allows year 0000; Postgres's date type has no year 0 (a 500 again).
  const date = ajv.formats.date as { validate: (value: string) => boolean; compare: (a: string, b: string) => number | undefined };
  ajv.addFormat('date', { ...date, validate: (value: string) => !value.startsWith('0000') && date.validate(value) });
  return ajv;
}

// Query strings, path parameters and headers arrive as strings: coerce them. Bodies are JSON: never.
const coercing = makeAjv(true);
const strict = makeAjv(false);

/** A multipart body is a stream, checked while it is read (src/http/uploads.ts), not by its schema. */
const checkedWhenRead = () => true;

/**
 * Compiled on the route's first request, not at start-up: compiling every operation's schemas up
 * front was a large part of a cold start, for routes a process may never serve. The wrapper
 * carries Ajv's `errors` of its last call, as Fastify reads them.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart, contentType }) => {
  if (httpPart === 'body' && contentType === 'multipart/form-data') return checkedWhenRead;
  const ajv = httpPart === 'body' ? strict : coercing;
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown) => {
    compiled ??= ajv.compile(schema as object);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate as never;
};

const partName: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function joinPath(base: string, pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = base;
  for (const seg of segments) out += /^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`;
  return out;
}

const EMAIL = 'must be an email address whose domain has at least one dot (ops@example.com)';

/** What a pattern of the spec means, said in words (Ajv's message would quote the regular expression). */
const PATTERN_MEANS: Record<string, string> = {
  ...TEXT_PATTERN_MEANS,
  '^[\\x21-\\x7E]{1,255}$': 'must be 1 to 255 printable ASCII characters, without spaces',
  '^https?://': 'must be an absolute http(s) URL',
  // The email format's own expression, which the spec states as a pattern too: one issue, not two.
  "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$":
    EMAIL,
};
const FORMAT_MEANS: Record<string, string> = { email: EMAIL };

/** An enum's values, or for a long one (the event catalog) how many there are and the first few. */
function mustBeOneOf(values: unknown[]): string {
  if (values.length <= 12) return `must be one of: ${values.join(', ')}`;
  return `must be one of the ${values.length} values the spec lists (${values.slice(0, 3).join(', ')}, ...)`;
}

export function issuesFromAjv(errors: ErrorObject[], context: string | undefined): Issue[] {
  const base = partName[context ?? 'body'] ?? context ?? 'body';
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const e of errors) {
    // The branches of a oneOf/anyOf repeat themselves; keep the leaf errors.
    if (e.keyword === 'if') continue;
    let field = joinPath(base, e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') (field += `.${(e.params as { missingProperty: string }).missingProperty}`), (message = 'is required');
    else if (e.keyword === 'additionalProperties')
      (field += `.${(e.params as { additionalProperty: string }).additionalProperty}`), (message = 'is not a known field');
    else if (e.keyword === 'enum') message = mustBeOneOf((e.params as { allowedValues: unknown[] }).allowedValues);
    else if (e.keyword === 'pattern') message = PATTERN_MEANS[(e.params as { pattern: string }).pattern] ?? message;
    else if (e.keyword === 'format') message = FORMAT_MEANS[(e.params as { format: string }).format] ?? message;
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: field, message });
  }
  return issues;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** From the spec: whether the operation requires a body, and the media types it takes. */
    requestBody?: { required: boolean; mediaTypes: string[] };
  }
}

/**
 * Fastify validates a body only against the schema of its own media type, and not at all when
 * there is none: a multipart body (the parser is registered for the whole app) or no body would
 * reach the handler unchecked. So: a media type the operation does not take is 415, and a
 * missing required body 400.
 */
export async function checkRequestBody(request: FastifyRequest): Promise<void> {
  const spec = request.routeOptions.config.requestBody;
  if (!spec) return;
  const contentType = request.headers['content-type'];
  if (contentType === undefined) {
    if (spec.required) throw validationFailed('body', 'is required');
    return;
  }
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (!spec.mediaTypes.includes(mediaType)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `this operation takes ${spec.mediaTypes.join(' or ')}, not ${mediaType}`);
  }
}

/**
 * The path of a string (value or key) in `value` that holds U+0000, if any. A loop, not recursion:
 * a body may nest deeper than the stack goes before its schema is checked.
 */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null) return typeof value === 'string' && value.includes('\u0000') ? path : undefined;
  const pending: [unknown, string][] = [[value, path]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, at] = next;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return at;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const childAt = Array.isArray(item) ? `${at}[${key}]` : `${at}.${key}`;
        if (key.includes('\u0000')) return childAt;
        pending.push([child, childAt]);
      }
    }
  }
  return undefined;
}

/** Postgres text cannot hold U+0000: refuse it as invalid input, naming the field, rather than fail in the database. */
export function refuseNulCharacters(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const path = nulPath(request.body, 'body') ?? nulPath(request.query, 'query');
  done(path ? validationFailed(path, 'must not contain the NUL character (U+0000)') : undefined);
}
