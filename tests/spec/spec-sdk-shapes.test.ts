// The shapes SDK generators read cleanly, held for every schema of openapi.yaml (found by generating
// clients with openapi-typescript, @hey-api/openapi-ts, orval, typed-openapi, openapi-zod-client and
// kubb; `npm run check:sdks` generates and typechecks some of them). Each rule names what breaks.
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { listOperations, loadSpec, publishedSpec, type OpenApiDocument } from '../../src/spec.ts';

const spec = loadSpec();
type Schema = OpenApiDocument;

/** Every schema object in the document with where it is: components, parameters, bodies, responses, headers. */
function allSchemas(): { where: string; schema: Schema; named: boolean }[] {
  const found: { where: string; schema: Schema; named: boolean }[] = [];
  const walk = (s: unknown, where: string, named: boolean) => {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return;
    const schema = s as Schema;
    if (schema.$ref) return;
    found.push({ where, schema, named });
    for (const [k, v] of Object.entries<Schema>(schema.properties ?? {})) walk(v, `${where}.${k}`, false);
    if (schema.items) walk(schema.items, `${where}[]`, false);
    if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}{}`, false);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const)
      for (const [i, v] of (schema[key] ?? []).entries()) walk(v, `${where}.${key}[${i}]`, false);
  };
  for (const [name, s] of Object.entries(spec.components.schemas)) walk(s, name, true);
  for (const [name, h] of Object.entries<Schema>(spec.components.headers ?? {})) walk(h.schema, `header ${name}`, false);
  for (const [name, p] of Object.entries<Schema>(spec.components.parameters ?? {})) walk(p.schema, `parameter ${name}`, false);
  for (const op of listOperations(spec)) {
    for (const p of op.operation.parameters ?? []) if (!p.$ref) walk(p.schema, `${op.operationId}(${p.name})`, false);
    for (const [type, media] of Object.entries<Schema>(op.operation.requestBody?.content ?? {}))
      walk(media.schema, `${op.operationId} body ${type}`, false);
    for (const [status, r] of Object.entries<Schema>(op.operation.responses ?? {}))
      for (const media of Object.values<Schema>(r.content ?? {})) walk(media.schema, `${op.operationId} ${status}`, false);
  }
  return found;
}

const schemas = allSchemas();
const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

describe('schemas SDK generators read cleanly', () => {
  it('gives every integer a format (int32 or int64), so Java, Go and C# clients pick the right type', () => {
    const bare = schemas.filter(({ schema }) => typesOf(schema).includes('integer') && !['int32', 'int64'].includes(schema.format));
    expect(bare.map((s) => s.where)).toEqual([]);
  });

  it('never lists null in an enum (openapi-zod-client emits code that does not compile): a nullable enum is oneOf null and a named enum', () => {
    expect(schemas.filter(({ schema }) => (schema.enum ?? []).includes(null)).map((s) => s.where)).toEqual([]);
  });

  it('never mixes allOf with its own properties or required (hey-api, typed-openapi and openapi-zod-client lose required fields)', () => {
    const mixed = schemas.filter(({ schema }) => schema.allOf && (schema.properties || schema.required));
    expect(mixed.map((s) => s.where)).toEqual([]);
  });

  it('names every enum and object a client uses (generators otherwise invent names such as ListGigsOwner)', () => {
    const inline = schemas.filter(({ schema, named }) => !named && ((schema.enum?.length ?? 0) > 1 || schema.properties));
    expect(inline.map((s) => s.where)).toEqual([]);
  });

  it('names no schema after a JavaScript built-in (a generated `Error` type shadows the global)', () => {
    const builtIns = [
      'Error',
      'Object',
      'Array',
      'Date',
      'Map',
      'Set',
      'Promise',
      'Record',
      'Function',
      'String',
      'Number',
      'Boolean',
      'Symbol',
      'JSON',
      'Request',
      'Response',
      'File',
      'Blob',
    ];
    expect(Object.keys(spec.components.schemas).filter((name) => builtIns.includes(name))).toEqual([]);
  });
});

describe('servers', () => {
  it('are absolute, so generated clients can call them from Node (a relative URL fails to parse there)', () => {
    for (const server of spec.servers) {
      const url = server.url.replace(/\{(\w+)\}/g, (_: string, name: string) => server.variables?.[name]?.default ?? '');
      expect(new URL(url).protocol, server.url).toMatch(/^https?:$/);
    }
  });

  it('are served with the running server first, the same in YAML and JSON', () => {
    const published = publishedSpec(spec, 'https://gigmarket.example.com');
    const fromYaml = YAML.parse(published.yaml);
    expect(fromYaml.servers[0]).toEqual({ url: 'https://gigmarket.example.com', description: 'This server.' });
    expect(fromYaml).toEqual(published.json);
    expect(fromYaml.servers.slice(1)).toEqual(spec.servers);
    // Already listed (the default local server): the file as it is.
    expect(YAML.parse(publishedSpec(spec, 'http://localhost:3000').yaml)).toEqual(spec);
  });
});

it('publishes no operation that only the payment provider calls (its webhook is served outside the spec)', () => {
  expect(Object.keys(spec.paths).filter((p) => p.includes('stripe'))).toEqual([]);
});
