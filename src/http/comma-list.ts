// Query parameters that carry a list, sent comma-separated (`tags=rust,wasm`): the spec declares
// them arrays with `style: form, explode: false`, which Fastify's query parser does not read. They
// are split here, before validation, into the arrays their schemas check item by item; the
// parameter repeated (`tags=rust&tags=wasm`, as clients that explode arrays send it) reads the
// same. An empty value is an empty list.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiDocument } from '../spec.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** From the spec: the operation's query parameters that are comma-separated lists. */
    commaLists?: string[];
  }
}

/** A parameter as written, or the one its local `$ref` names (`#/components/parameters/...`). */
function resolved(spec: OpenApiDocument, parameter: OpenApiDocument): OpenApiDocument {
  const ref = parameter.$ref;
  if (typeof ref !== 'string') return parameter;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<OpenApiDocument>((node, key) => node?.[key], spec);
}

/** The names of the operation's query parameters declared as comma-separated lists. */
export function commaListParameters(spec: OpenApiDocument, operation: OpenApiDocument): string[] {
  return ((operation.parameters ?? []) as OpenApiDocument[])
    .map((p) => resolved(spec, p))
    .filter((p) => p?.in === 'query' && p.style === 'form' && p.explode === false)
    .map((p) => p.name as string);
}

const split = (value: unknown): unknown[] =>
  Array.isArray(value) ? value.flatMap(split) : typeof value === 'string' ? (value === '' ? [] : value.split(',')) : [value];

/** preValidation, on the routes whose operation has such parameters: each one's value(s) as one array. */
export function splitCommaLists(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const query = request.query as Record<string, unknown>;
  for (const name of request.routeOptions.config.commaLists ?? []) if (query[name] !== undefined) query[name] = split(query[name]);
  done();
}
