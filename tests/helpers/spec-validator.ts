// Checks every response the tests see against the spec's schema for that path, method and status.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Middleware } from 'openapi-fetch';
import { loadSpec } from '../../src/spec.ts';

const spec = loadSpec();
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(spec, 'spec');

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Resolves a response object's own `$ref` (e.g. '#/components/responses/NotFound'). */
function resolveResponse(response: { $ref?: string } | undefined): { ref: string; value: any } | undefined {
  if (!response) return undefined;
  if (response.$ref) {
    const path = response.$ref.replace(/^#\//, '').split('/');
    let value: any = spec;
    for (const p of path) value = value?.[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    return { ref: response.$ref.replace(/^#/, ''), value };
  }
  return undefined;
}

const cache = new Map<string, ReturnType<typeof ajv.compile>>();

/** Throws unless `body` (already parsed) with `status` matches the spec for this operation. */
export function assertMatchesSpec(schemaPath: string, method: string, status: number, contentType: string | null, body: unknown): void {
  const where = `${method.toUpperCase()} ${schemaPath} -> ${status}`;
  const operation = spec.paths?.[schemaPath]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${where}: no such operation in openapi.yaml`);
  const declared = operation.responses?.[String(status)];
  if (!declared) throw new Error(`${where}: status not declared in openapi.yaml; body ${JSON.stringify(body)}`);
  const resolved = resolveResponse(declared);
  const response = resolved?.value ?? declared;
  const responseBase = resolved ? resolved.ref : '/' + pointer('paths', schemaPath, method.toLowerCase(), 'responses', String(status));
  const content = response.content as Record<string, unknown> | undefined;
  if (!content) {
    if (body !== undefined && body !== null && body !== '')
      throw new Error(`${where}: the spec declares no body, got ${JSON.stringify(body)}`);
    return;
  }
  const mediaType = Object.keys(content).find((m) => contentType?.startsWith(m));
  if (!mediaType) throw new Error(`${where}: content type ${contentType} not declared (${Object.keys(content).join(', ')})`);
  if (!mediaType.includes('json')) return;
  const ref = `spec#${responseBase}/${pointer('content', mediaType, 'schema')}`;
  let validate = cache.get(ref);
  if (!validate) cache.set(ref, (validate = ajv.compile({ $ref: ref })));
  if (!validate(body)) {
    throw new Error(`${where}: body does not match the spec: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2)}`);
  }
}

/** openapi-fetch middleware: every response is checked against the spec before a test sees it. */
export const specValidation: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const text = await response.clone().text();
    let body: unknown = text;
    const contentType = response.headers.get('content-type');
    if (contentType?.includes('json') && text) body = JSON.parse(text);
    assertMatchesSpec(schemaPath, request.method, response.status, contentType, text === '' ? undefined : body);
    return undefined;
  },
};

const isErrorResponse = ajv.compile({ $ref: 'spec#/components/schemas/ErrorResponse' });

/** Throws unless `body` is the spec's error envelope (for routes outside the spec, e.g. the provider webhook). */
export function assertErrorEnvelope(where: string, body: unknown): void {
  if (!isErrorResponse(body))
    throw new Error(`${where}: not the error envelope: ${ajv.errorsText(isErrorResponse.errors)}; body ${JSON.stringify(body)}`);
}
