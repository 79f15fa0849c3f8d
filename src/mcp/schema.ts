// Each exposed operation as an MCP tool definition, built from openapi.yaml alone: the input schema
// is one object whose properties are the operation's path, query and header parameters (by their
// names in the spec) and, when it takes a JSON body, `body` (the body's schema). Nothing is copied
// by hand; $refs are inlined, since a tool's schema must stand on its own.
import { listOperations, type OpenApiDocument, type SpecOperation } from '../spec.ts';
import { type ExposedOperation, MCP_OPERATIONS } from './operations.ts';

// JSON Schema is untyped JSON.
export type JsonSchema = Record<string, any>;

export interface ToolParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  method: string;
  path: string;
  parameters: ToolParameter[];
  /** Whether the operation takes a JSON body (`body`), and whether it must. */
  body: 'none' | 'optional' | 'required';
  inputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  exposed: ExposedOperation;
}

/** OpenAPI keywords that are not JSON Schema; `example` becomes `examples`. */
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'example']);

function pointer(spec: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: unknown = spec;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`$ref ${ref} does not resolve`);
  return node;
}

/** A copy of `node` with every $ref replaced by what it points to (siblings of a $ref win). */
export function inlineRefs(spec: OpenApiDocument, node: unknown, seen: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(spec, item, seen));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  let base: Record<string, unknown> = {};
  if (typeof $ref === 'string') {
    if (seen.includes($ref)) throw new Error(`recursive $ref ${$ref} cannot be inlined`);
    base = inlineRefs(spec, pointer(spec, $ref), [...seen, $ref]) as Record<string, unknown>;
  }
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(rest)) {
    if (key.startsWith('x-') || OPENAPI_ONLY.has(key)) continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      // Keys here are names, not keywords: keep every one.
      out[key] = Object.fromEntries(Object.entries(value as object).map(([name, schema]) => [name, inlineRefs(spec, schema, seen)]));
    } else {
      out[key] = inlineRefs(spec, value, seen);
    }
  }
  if ('example' in rest && !('examples' in out)) out.examples = [rest.example];
  return out;
}

/**
 * The schema with every `type` array (`[string, 'null']`, as OpenAPI 3.1 writes a nullable) made
 * an `anyOf` of single types: some MCP clients read only single-type JSON Schema.
 */
export function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === 'properties' || key === 'patternProperties' || key === '$defs'
        ? Object.fromEntries(Object.entries(value as object).map(([name, schema]) => [name, singleTyped(schema)]))
        : singleTyped(value);
  }
  if (!Array.isArray(out.type)) return out;
  const { type, enum: values, ...constraints } = out as { type: string[]; enum?: unknown[] } & Record<string, unknown>;
  const nonNull = type.filter((t) => t !== 'null');
  // Keywords about the value (constraints) go with its non-null types; what describes the whole stays outside.
  const outer = Object.fromEntries(
    Object.entries(constraints).filter(([k]) => ['description', 'title', 'examples', 'default'].includes(k)),
  );
  const inner = Object.fromEntries(Object.entries(constraints).filter(([k]) => !(k in outer)));
  const branches: Record<string, unknown>[] = nonNull.map((t) => ({
    type: t,
    ...inner,
    ...(values ? { enum: values.filter((v) => v !== null) } : {}),
  }));
  if (type.includes('null')) branches.push({ type: 'null' });
  return branches.length === 1 ? { ...outer, ...branches[0] } : { ...outer, anyOf: branches };
}

/** What a tool does beyond its operation, said first in its description. */
const TOOL_NOTES: Record<string, string> = {
  approveContract:
    "Through MCP this never approves on your word alone: for an owner whose approval_policy is owner_confirms it asks the owner to approve on the contract's page (a URL elicitation when your client supports one, else the link in the result) and waits; otherwise it shows your owner the exact terms (form elicitation) and approves only on their explicit yes.",
};

/**
 * The spec's words as a tool's: the spec points at sections of its own introduction ("see
 * Retries above"), which a tool's reader does not have before them.
 */
export function forTool(text: string): string {
  return text
    .replaceAll('see "Retries" above', 'see "Retries" in the introduction')
    .replaceAll('in the introduction', 'in the introduction of the API reference (/openapi.yaml)');
}

function describe(op: SpecOperation): string {
  const { summary, description } = op.operation;
  return forTool(
    [TOOL_NOTES[op.operationId], summary, description?.trim(), `(${op.method.toUpperCase()} ${op.path})`].filter(Boolean).join('\n\n'),
  );
}

export function toolDefinition(spec: OpenApiDocument, op: SpecOperation, exposed: ExposedOperation): ToolDefinition {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameters: ToolParameter[] = [];
  for (const raw of op.operation.parameters ?? []) {
    const param = inlineRefs(spec, raw) as JsonSchema;
    if (!['path', 'query', 'header'].includes(param.in)) throw new Error(`${op.operationId}: parameter in ${param.in} is not supported`);
    const isRequired = param.in === 'path' || param.required === true;
    parameters.push({ name: param.name, in: param.in, required: isRequired });
    properties[param.name] = { ...param.schema, ...(param.description ? { description: forTool(param.description.trim()) } : {}) };
    if (isRequired) required.push(param.name);
  }
  let body: ToolDefinition['body'] = 'none';
  const requestBody = op.operation.requestBody;
  if (requestBody) {
    const media = Object.keys(requestBody.content ?? {});
    const json = requestBody.content?.['application/json'];
    if (!json || media.length !== 1)
      throw new Error(`${op.operationId}: only operations with a JSON body can be tools, got ${media.join(', ')}`);
    body = requestBody.required === true ? 'required' : 'optional';
    properties.body = {
      ...(inlineRefs(spec, json.schema) as JsonSchema),
      description: requestBody.description?.trim() ?? `The JSON request body of ${op.operationId}.`,
    };
    if (body === 'required') required.push('body');
  }
  const readOnly = op.method === 'get';
  const title = op.operation.summary ?? op.operationId;
  return {
    name: op.operationId,
    title,
    description: describe(op),
    method: op.method.toUpperCase(),
    path: op.path,
    parameters,
    body,
    inputSchema: singleTyped({ type: 'object', properties, required, additionalProperties: false }) as ToolDefinition['inputSchema'],
    annotations: {
      title,
      readOnlyHint: readOnly,
      // A read changes nothing, so repeating it does nothing more.
      destructiveHint: !readOnly && exposed.destructive === true,
      idempotentHint: readOnly || exposed.idempotent === true,
      // Every tool acts on gigmarket alone.
      openWorldHint: false,
    },
    exposed,
  };
}

/** The tools, in the table's order; an operationId the spec lacks stops the server. */
export function toolDefinitions(spec: OpenApiDocument): ToolDefinition[] {
  const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
  return MCP_OPERATIONS.map((exposed) => {
    const op = operations.get(exposed.operationId);
    if (!op) throw new Error(`MCP_OPERATIONS names ${exposed.operationId}, which openapi.yaml lacks`);
    return toolDefinition(spec, op, exposed);
  });
}
