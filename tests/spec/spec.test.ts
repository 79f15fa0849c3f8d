// The spec's house rules, checked mechanically on every operation of openapi.yaml (the lint
// checks the general OpenAPI rules; these are ours, from docs/architecture.md §3 and the issue).
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { listOperations, loadSpec, specCacheDir, specText, type OpenApiDocument } from '../../src/spec.ts';
import { statusOf } from '../../src/errors.ts';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const spec = loadSpec();
const operations = listOperations(spec);
const definedTags = new Set<string>((spec.tags ?? []).map((t: { name: string }) => t.name));

/** Follows a local `$ref` (e.g. '#/components/responses/NotFound') to what it names. */
function deref<T = OpenApiDocument>(value: T | { $ref: string }): T {
  let v: unknown = value;
  for (let i = 0; i < 10 && v && typeof v === 'object' && '$ref' in v; i++) {
    const ref = (v as { $ref: string }).$ref;
    v = ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, p) => (node as Record<string, unknown> | undefined)?.[p], spec);
  }
  return v as T;
}

const statuses = (operation: OpenApiDocument) => Object.keys(operation.responses ?? {});
const jsonBody = (operation: OpenApiDocument) => deref(operation.requestBody ?? {})?.content?.['application/json'];
const hasExample = (media: OpenApiDocument) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;

/**
 * Object schemas (followed through $ref, properties, items and compositions) that break a rule.
 * Closed means `additionalProperties: false`, or `unevaluatedProperties: false` on a schema that
 * composes its parts with allOf (which then need not close themselves); `additionalProperties:
 * true`, written out, is a deliberate open schema (e.g. a provider's event).
 */
function objectProblems(
  schema: unknown,
  where: string,
  rules: { requiredList: boolean },
  seen = new Set<unknown>(),
  closedByParent = false,
): string[] {
  const s = deref(schema as OpenApiDocument);
  if (!s || typeof s !== 'object' || seen.has(s)) return [];
  seen.add(s);
  const problems: string[] = [];
  const closesParts = s.unevaluatedProperties === false;
  if (s.properties) {
    const closed = s.additionalProperties === false || s.additionalProperties === true || closesParts || closedByParent;
    if (!closed) problems.push(`${where}: additionalProperties must be false`);
    if (rules.requiredList && !Array.isArray(s.required)) problems.push(`${where}: must list required`);
    for (const [name, sub] of Object.entries(s.properties)) problems.push(...objectProblems(sub, `${where}.${name}`, rules, seen));
  }
  if (s.items) problems.push(...objectProblems(s.items, `${where}[]`, rules, seen));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    for (const [i, sub] of (s[key] ?? []).entries())
      problems.push(...objectProblems(sub, `${where}(${key}[${i}])`, rules, seen, key === 'allOf' && closesParts));
  }
  return problems;
}

it('has operations to check', () => {
  expect(operations.length).toBeGreaterThan(1);
});

it('uses each operationId once', () => {
  const ids = operations.map((o) => o.operationId);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
});

describe.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path} (${o.operationId})`, o] as const))('%s', (_name, op) => {
  const { operation, path, method, security } = op;
  const declared = statuses(operation);

  it('has an operationId, summary, description and defined tags', () => {
    expect(operation.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(operation.summary?.trim()).toBeTruthy();
    expect(operation.description?.trim()).toBeTruthy();
    expect(operation.tags?.length).toBeGreaterThan(0);
    for (const tag of operation.tags ?? []) expect(definedTags, `tag ${tag}`).toContain(tag);
  });

  it.runIf(security.length > 0)('declares 401 and 500, being authenticated', () => {
    expect(declared).toEqual(expect.arrayContaining(['401', '500']));
  });

  // Idempotency-Key is honoured per caller: unauthenticated POSTs (the provider's webhook, which
  // dedups by event id instead) have none.
  it.runIf(method === 'post' && security.length > 0)(
    'takes an Idempotency-Key and declares 409 and 422, being an authenticated POST',
    () => {
      // Each its own parameter, for its own example (tests/spec/spec-strictness.test.ts), of the one schema.
      const key = (operation.parameters ?? []).find((p: { name?: string }) => p.name === 'Idempotency-Key');
      expect(key).toMatchObject({ in: 'header', schema: { $ref: '#/components/schemas/IdempotencyKey' } });
      expect(key.required).not.toBe(true);
      expect(declared).toEqual(expect.arrayContaining(['409', '422']));
      expect(deref(operation.responses['422'])).toBe(spec.components.responses.IdempotencyKeyReused);
    },
  );

  // Even one without parameters: its query parameter list is closed, so `?limt=5` is a 400.
  it('declares 400, every operation refusing query parameters it does not define', () => {
    expect(declared).toContain('400');
  });

  it.runIf(jsonBody(operation) !== undefined)('has a request example, a closed body schema, and declares 413 and 415', () => {
    const media = jsonBody(operation)!;
    expect(hasExample(media), 'request body example').toBe(true);
    expect(objectProblems(media.schema, 'body', { requiredList: false })).toEqual([]);
    expect(declared).toEqual(expect.arrayContaining(['400', '413', '415']));
  });

  // Fastify reads a body sent with any method but GET, taken or not: one too large is 413, one of a
  // type it has no parser for 415 (tests/spec/declared-statuses.test.ts sends them).
  it.runIf(method !== 'get')('declares 413 and 415, the server reading a body of any method but GET', () => {
    expect(declared).toEqual(expect.arrayContaining(['413', '415']));
  });

  it('has an example and a closed, required-listing schema for every JSON response', () => {
    const problems: string[] = [];
    for (const status of declared) {
      const response = deref(operation.responses[status]);
      if (!response?.description) problems.push(`${status}: no description`);
      const media = response?.content?.['application/json'];
      if (!media) continue;
      if (!hasExample(media)) problems.push(`${status}: no example`);
      problems.push(...objectProblems(media.schema, `${status}`, { requiredList: true }));
    }
    expect(problems).toEqual([]);
  });

  it.runIf(/\{[^}]+\}/.test(path))('declares 404, addressing a resource by id', () => {
    expect(declared).toContain('404');
  });
});

describe('the error codes', () => {
  // The envelope's `code`, reached through a response that carries it (whatever its schemas are named).
  const envelope = deref(deref(spec.components.responses.ValidationFailed).content['application/json'].schema);
  const codes: string[] = deref(deref(envelope.properties.error).properties.code).enum;

  it('lists exactly the codes the server sends (src/errors.ts)', () => {
    expect([...codes].sort()).toEqual(Object.keys(statusOf).sort());
  });

  // Answered for a path before any of its operations is reached (a method the path does not
  // define): no operation can declare it, so the introduction says it, as it says 431 and 408.
  const beforeAnyOperation = ['METHOD_NOT_ALLOWED'];

  // A code no operation declares is one no client generated from the spec expects.
  it('declares each code on some operation, under the status the server sends it with', () => {
    const declares = (op: (typeof operations)[number], code: string) => {
      const response = op.operation.responses?.[String(statusOf[code as keyof typeof statusOf])];
      return response !== undefined && new RegExp(`\\b${code}\\b`).test(JSON.stringify(deref(response)));
    };
    const undeclared = codes.filter((code) => !operations.some((op) => declares(op, code)));
    expect(undeclared).toEqual(beforeAnyOperation);
  });

  it('names in the introduction, with its status, each code answered before any operation is reached', () => {
    for (const code of beforeAnyOperation)
      expect(spec.info.description, code).toContain(`${statusOf[code as keyof typeof statusOf]} ${code}`);
  });
});

describe('the event catalog (webhooks)', () => {
  // Every event type the code can write is documented under `webhooks:`, and nothing else is.
  it('lists exactly the event types the code writes', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
      );
    const written = new Set<string>();
    for (const file of ['src', 'handlers', 'db', 'jobs'].flatMap(files)) {
      for (const m of readFileSync(file, 'utf8').matchAll(
        /'((?:gig|application|api_key|profile|negotiation|contract|milestone|webhook_endpoint|vouch|review|credits|dispute)\.[a-z_]+)'/g,
      ))
        written.add(m[1]!);
    }
    expect([...written].sort()).toEqual(Object.keys(spec.webhooks ?? {}).sort());
  });
});

describe('loadSpec', () => {
  it('gives the YAML document as parsed, whether from its cache or from the YAML', () => {
    const parsed = YAML.parse(specText);
    rmSync(specCacheDir, { recursive: true, force: true });
    expect(loadSpec()).toEqual(parsed); // parsed, then cached
    const cached = readdirSync(specCacheDir).filter((f) => f.endsWith('.json'));
    expect(cached).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(specCacheDir, cached[0]!), 'utf8'))).toEqual(parsed);
    expect(loadSpec()).toEqual(parsed); // from the cache
  });
});
