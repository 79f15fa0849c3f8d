// Request validation with Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1), and the mapping of
// Ajv's errors to the envelope's `issues`, each naming the field.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { Issue } from '../errors.ts';

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({
    strict: false, // the spec carries `example`s and other annotations
    allErrors: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
  });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

// Query strings, path parameters and headers arrive as strings: coerce them. Bodies are JSON: never.
const coercing = makeAjv(true);
const strict = makeAjv(false);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema as object) as never;
};

const partName: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function joinPath(base: string, pointer: string): string {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = base;
  for (const seg of segments) out += /^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`;
  return out;
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
    if (e.keyword === 'required') field += `.${(e.params as { missingProperty: string }).missingProperty}`, message = 'is required';
    else if (e.keyword === 'additionalProperties') field += `.${(e.params as { additionalProperty: string }).additionalProperty}`, message = 'is not a known field';
    // unevaluatedProperties: the same for schemas composed with allOf (e.g. NegotiateRequest).
    else if (e.keyword === 'unevaluatedProperties') field += `.${(e.params as { unevaluatedProperty: string }).unevaluatedProperty}`, message = 'is not a known field';
    else if (e.keyword === 'enum') message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: field, message });
  }
  return issues;
}
