// OpenAPI 3.1 schemas as the JSON Schema MCP clients read: OpenAPI's own keywords dropped, a
// schema standing on its own (every $ref inlined, or pointing into its own $defs), and single
// types only.
import type { OpenApiDocument } from '../spec.ts';

// JSON Schema is untyped JSON.
export type JsonSchema = Record<string, any>;

/** OpenAPI keywords that are not JSON Schema; `example` becomes `examples`. */
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'example']);

/** Keywords whose keys are names, not keywords: every one is kept. */
const NAMED = new Set(['properties', 'patternProperties', '$defs']);

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const NO_EXTENSIONS: ReadonlySet<string> = new Set();

export function pointer(spec: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: unknown = spec;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`$ref ${ref} does not resolve`);
  return node;
}

const mapNamed = (value: unknown, f: (schema: unknown) => unknown) =>
  Object.fromEntries(Object.entries(value as object).map(([name, schema]) => [name, f(schema)]));

/**
 * A copy of `node` as JSON Schema: each $ref replaced by what `ref` makes of it (its siblings
 * win), OpenAPI-only keywords and `x-` extensions dropped but for those in `keep`.
 */
export function jsonSchemaOf(
  node: unknown,
  ref: (target: string) => Record<string, unknown>,
  keep: ReadonlySet<string> = NO_EXTENSIONS,
): unknown {
  if (Array.isArray(node)) return node.map((item) => jsonSchemaOf(item, ref, keep));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = typeof $ref === 'string' ? { ...ref($ref) } : {};
  for (const [key, value] of Object.entries(rest)) {
    if ((key.startsWith('x-') && !keep.has(key)) || OPENAPI_ONLY.has(key)) continue;
    out[key] = NAMED.has(key) ? mapNamed(value, (s) => jsonSchemaOf(s, ref, keep)) : jsonSchemaOf(value, ref, keep);
  }
  if ('example' in rest && !('examples' in out)) out.examples = [rest.example];
  return out;
}

/** A copy of `node` with every $ref replaced by what it points to (siblings of a $ref win). */
export function inlineRefs(spec: OpenApiDocument, node: unknown, seen: readonly string[] = []): unknown {
  return jsonSchemaOf(node, (ref) => {
    if (seen.includes(ref)) throw new Error(`recursive $ref ${ref} cannot be inlined`);
    return inlineRefs(spec, pointer(spec, ref), [...seen, ref]) as Record<string, unknown>;
  });
}

const COMPONENT = '#/components/schemas/';

type Local = { schema: unknown; uses: Set<string> };

/** A schema of the spec, single-typed, its $refs pointing into `$defs`; with the components it names. */
function localized(spec: OpenApiDocument, node: unknown, keep: ReadonlySet<string>): Local {
  const uses = new Set<string>();
  const schema = jsonSchemaOf(
    node,
    (ref) => {
      if (!ref.startsWith(COMPONENT)) throw new Error(`a schema's $ref must name a component schema, got ${ref}`);
      pointer(spec, ref); // one that does not resolve stops the server, as an inlined one does
      uses.add(ref.slice(COMPONENT.length));
      return { $ref: `#/$defs/${ref.slice(COMPONENT.length)}` };
    },
    keep,
  );
  return { schema: singleTyped(schema), uses };
}

/** Each component made once per document and extensions kept: the tools share most of them. */
const made = new WeakMap<OpenApiDocument, Map<string, Local>>();

function component(spec: OpenApiDocument, name: string, keep: ReadonlySet<string>): Local {
  let cache = made.get(spec);
  if (!cache) made.set(spec, (cache = new Map()));
  const key = `${[...keep].join(',')} ${name}`;
  let local = cache.get(key);
  if (!local) cache.set(key, (local = localized(spec, spec.components.schemas[name], keep)));
  return local;
}

/**
 * `node` (a schema of the spec) as a single-typed schema of its own: each component it uses,
 * directly or not, in `$defs` under its name, and every $ref pointing there (recursion needs no
 * inlining). `keep` names the `x-` extensions to keep. Shared parts are shared objects: read only.
 */
export function withDefs(spec: OpenApiDocument, node: unknown, keep: ReadonlySet<string> = NO_EXTENSIONS): JsonSchema {
  const root = localized(spec, node, keep);
  const defs: Record<string, unknown> = {};
  const used = new Set(root.uses);
  // A Set's iteration reaches what is added during it: each component's own components too.
  for (const name of used) {
    const local = component(spec, name, keep);
    defs[name] = local.schema;
    for (const more of local.uses) used.add(more);
  }
  return used.size ? { ...(root.schema as JsonSchema), $defs: defs } : (root.schema as JsonSchema);
}

/**
 * The schema with every `type` array (`[string, 'null']`, as OpenAPI 3.1 writes a nullable) made
 * an `anyOf` of single types: some MCP clients read only single-type JSON Schema.
 */
export function singleTyped(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTyped);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = NAMED.has(key) ? mapNamed(value, singleTyped) : singleTyped(value);
  if (!Array.isArray(out.type)) return out;
  const { type, enum: values, ...constraints } = out as { type: string[]; enum?: unknown[] } & Record<string, unknown>;
  const nonNull = type.filter((t) => t !== 'null');
  // Keywords about the value (constraints) go with its non-null types; what describes the whole stays outside.
  const outer = Object.fromEntries(
    Object.entries(constraints).filter(([k]) => ['description', 'title', 'examples', 'default'].includes(k) || k.startsWith('x-')),
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
