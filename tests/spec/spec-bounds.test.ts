// Every input is bounded, so that no request can cost an unbounded amount of work: each string a
// client sends has a maxLength (or is an enum, or a uuid or date), each array a maxItems, each
// number a maximum. Read from openapi.yaml, so an operation added later is held to it too.
import { describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../../src/spec.ts';

type Schema = Record<string, unknown> & { $ref?: string };
const spec = loadSpec() as unknown as Record<string, unknown>;
const resolve = (s: unknown): Schema | undefined => {
  const schema = s as Schema | undefined;
  if (!schema?.$ref) return schema;
  return resolve(
    schema.$ref
      .split('/')
      .slice(1)
      .reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], spec),
  );
};

/** The unbounded places in a schema, named by path. */
function unbounded(s: unknown, path: string, seen = new Set<unknown>()): string[] {
  const schema = resolve(s);
  if (!schema || seen.has(schema) || schema.enum || schema.const !== undefined) return [];
  seen.add(schema);
  const found: string[] = [];
  for (const k of ['oneOf', 'anyOf', 'allOf']) for (const x of (schema[k] as unknown[]) ?? []) found.push(...unbounded(x, path, seen));
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const formatBounded = ['uuid', 'date', 'date-time'].includes(String(schema.format));
  if (types.includes('string') && schema.maxLength === undefined && !formatBounded) found.push(`${path}: a string without maxLength`);
  if ((types.includes('integer') || types.includes('number')) && schema.maximum === undefined)
    found.push(`${path}: a number without maximum`);
  if (types.includes('array')) {
    if (schema.maxItems === undefined) found.push(`${path}: an array without maxItems`);
    found.push(...unbounded(schema.items, `${path}[]`, seen));
  }
  for (const [k, v] of Object.entries((schema.properties as Record<string, unknown>) ?? {}))
    found.push(...unbounded(v, `${path}.${k}`, seen));
  return found;
}

describe('request inputs', () => {
  const operations = listOperations(loadSpec());
  for (const op of operations) {
    it(`${op.operationId}: every parameter and body field has a documented maximum`, () => {
      const found: string[] = [];
      for (const p of (op.operation.parameters ?? []) as unknown[]) {
        const param = resolve(p) as { in: string; name: string; schema: unknown };
        found.push(...unbounded(param.schema, `${param.in}.${param.name}`));
      }
      const body = resolve(op.operation.requestBody) as { content?: Record<string, { schema: unknown }> } | undefined;
      for (const [type, media] of Object.entries(body?.content ?? {})) {
        // A multipart body's limits are the upload's (@fastify/multipart), not its schema's.
        if (type !== 'multipart/form-data') found.push(...unbounded(media.schema, `body`));
      }
      expect(found).toEqual([]);
    });
  }
});
