// JSON Schema (the subset openapi.yaml uses, and a little more) to fast-check arbitraries: values
// that satisfy a schema, and values that break it somewhere. Covers type (and type arrays, so
// `[string, 'null']`), enum, const, format (uuid, date, date-time, uri, email), minLength,
// maxLength, pattern, minimum, maximum, items, minItems, maxItems, properties, required,
// additionalProperties / unevaluatedProperties false, minProperties, allOf, oneOf, anyOf, $ref.
// Whether a generated value really is invalid is not left to the generator: `schemaValidator`
// judges it as the server's Ajv does (bodies strictly, parameters coerced from strings).
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { deref } from './operations.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = Record<string, any>;

/** Ids to prefer for a uuid field or parameter, by its name; random UUIDs are mixed in anyway. */
export type IdHints = (name: string | undefined) => readonly string[];

/** A copy of `schema` with every `$ref` replaced by what it names (siblings kept), so it stands alone. */
export function inline(schema: unknown, depth = 0): Schema {
  if (depth > 30) throw new Error('schema nests too deep (a recursive $ref?)');
  if (Array.isArray(schema)) return schema.map((s) => inline(s, depth + 1)) as never;
  if (!schema || typeof schema !== 'object') return schema as Schema;
  let s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const { $ref: _ref, ...siblings } = s;
    s = { ...deref<Schema>({ $ref: s.$ref }), ...siblings };
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'example' || k === 'examples' || k === 'description') continue;
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as Schema).map(([p, ps]) => [p, inline(ps, depth + 1)]))
        : inline(v, depth + 1);
  }
  return out;
}

/** An inlined schema with its allOf parts merged into it (their properties, required and types). */
function merged(schema: Schema): Schema {
  if (!schema.allOf) return schema;
  const { allOf, ...rest } = schema;
  const out: Schema = { ...rest, properties: { ...rest.properties }, required: [...(rest.required ?? [])] };
  for (const part of allOf as Schema[]) {
    const p = merged(part);
    Object.assign(out.properties, p.properties);
    out.required.push(...(p.required ?? []));
    out.type ??= p.type;
    if (p.additionalProperties === false) out.additionalProperties = false;
  }
  return out;
}

function typesOf(s: Schema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

const codePoints = (v: string) => [...v].length;
const MAX_INT = Number.MAX_SAFE_INTEGER;

/** Strings a person would not type but a client might send. */
const NASTY = [
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'x\udfffy',
  "'; drop table gigs; --",
  '%00',
  '\\',
  '"',
  '<script>alert(1)</script>',
  '🦀 crab',
  '\u202e\u0645',
  '   ',
  '\t\n',
  'null',
  '-1',
  '1e309',
];

function integerArb(min: number | undefined, max: number | undefined): fc.Arbitrary<number> {
  const lo = min ?? -MAX_INT;
  const hi = max ?? MAX_INT;
  const small = fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) });
  return fc.oneof(
    { arbitrary: small, weight: 4 },
    { arbitrary: fc.constantFrom(lo, hi), weight: 1 }, // the edges
    { arbitrary: fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }).map(Number), weight: 1 },
  );
}

function dateArb(): fc.Arbitrary<Date> {
  return fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
}

function stringArb(s: Schema, hints: IdHints, name: string | undefined): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const re = s.pattern ? new RegExp(s.pattern, 'u') : undefined;
  const fits = (v: string) => codePoints(v) >= min && codePoints(v) <= max && (!re || re.test(v));
  let base: fc.Arbitrary<string>;
  switch (s.format) {
    case 'uuid': {
      const known = hints(name);
      return known.length ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: fc.uuid(), weight: 1 }) : fc.uuid();
    }
    case 'date':
      base = dateArb().map((d) => d.toISOString().slice(0, 10));
      break;
    case 'date-time':
      base = dateArb().map((d) => d.toISOString());
      break;
    case 'uri':
      base = fc.webUrl({ withQueryParameters: true, withFragments: true });
      break;
    case 'email':
      base = fc.emailAddress();
      break;
    default: {
      const cap = Math.min(max, 120);
      const plain = fc.oneof(
        fc.string({ minLength: min, maxLength: Math.max(min, cap), unit: 'grapheme-ascii' }),
        fc.string({ minLength: min, maxLength: Math.max(min, cap), unit: 'grapheme' }),
        fc.string({ minLength: min, maxLength: Math.max(min, cap), unit: 'binary' }),
      );
      const options: fc.WeightedArbitrary<string>[] = [{ arbitrary: re ? fc.stringMatching(re) : plain, weight: 6 }];
      options.push({ arbitrary: fc.constantFrom(...NASTY), weight: 1 });
      // At the limit: exactly maxLength (and minLength) characters.
      if (Number.isFinite(max) && max <= 20_000) options.push({ arbitrary: fc.constantFrom('x'.repeat(max), 'é'.repeat(max)), weight: 1 });
      if (min > 0) options.push({ arbitrary: fc.constant('y'.repeat(min)), weight: 1 });
      base = fc.oneof(...options);
    }
  }
  return base.filter(fits);
}

/** Values that satisfy the (inlined) schema; uuids prefer `hints(name)`. */
export function validArb(schema: Schema, hints: IdHints, name?: string): fc.Arbitrary<unknown> {
  const s = merged(schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const branches = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (branches) {
    const { oneOf: _o, anyOf: _a, ...outer } = s;
    return fc.oneof(...branches.map((b) => validArb({ ...outer, ...b }, hints, name)));
  }
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((t) => validArb({ ...s, type: t }, hints, name)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(s.minimum, s.maximum);
    case 'number':
      return fc.double({ min: s.minimum ?? -1e12, max: s.maximum ?? 1e12, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArb(s, hints, name);
    case 'array': {
      const item = validArb(s.items ?? {}, hints, name);
      const min = s.minItems ?? 0;
      const options: fc.WeightedArbitrary<unknown[]>[] = [
        { arbitrary: fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 4, 4)) }), weight: 5 },
      ];
      if (s.maxItems !== undefined && s.maxItems <= 50)
        options.push({ arbitrary: fc.array(item, { minLength: s.maxItems, maxLength: s.maxItems }), weight: 1 });
      return fc.oneof(...options);
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const required = ((s.required ?? []) as string[]).filter((k) => k in props);
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validArb(v, hints, k)]));
      const record = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
      return s.minProperties ? record.filter((o) => Object.keys(o).length >= s.minProperties) : record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const JSON_TYPES: Record<string, fc.Arbitrary<unknown>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  string: fc.string({ maxLength: 10 }),
  array: fc.array(fc.integer(), { maxLength: 2 }),
  object: fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
};

const BAD_FORMAT: Record<string, string[]> = {
  uuid: [
    'not-a-uuid',
    '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7',
    '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7bb',
    'g190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b',
    '0190a5b27c3d7e4f8a1b2c3d4e5f6a7b0000',
    '{0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b}',
    ' 0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b',
    '1',
    "' or 1=1 --",
  ],
  date: ['2026-02-30', '2026-13-01', '20260101', '2026-1-1', 'tomorrow', '2026-01-01T00:00:00Z', '99999-01-01', '-0001-01-01'],
  'date-time': ['2026-01-01', 'now', '2026-01-01T25:00:00Z', '2026-01-01 00:00'],
  uri: ['not a uri', 'http//x', '://nothing', 'http://exa mple.com', '\\\\share\\x'],
  email: ['nobody', '@example.com', 'a@', 'a b@example.com'],
};
const BAD_PATTERN = [' ', '\t \n', '', 'usd', 'US', 'USDD', '123', 'a b', 'ftp://example.com/x', 'example.com', '€€€', 'x'.repeat(129)];
const BAD_ENUM = ['', 'UNKNOWN', 'Open', 'open ', 'null', '0', 'me,any', 'draft\u0000'];

/**
 * Values that break the (inlined) schema somewhere: a wrong type, a missing required field, an
 * unknown field, a number out of range, a string too long or too short, an unknown enum value, a
 * malformed format, a pattern not matched, too many items; at the top or nested. `param` mode
 * makes strings, as in a URL or header (where every value is a string, so "wrong type" means a
 * string that does not coerce). Undefined when the schema admits every value of its kind.
 */
export function invalidArb(schema: Schema, hints: IdHints, mode: 'json' | 'param', name?: string): fc.Arbitrary<unknown> | undefined {
  const s = merged(schema);
  const types = typesOf(s);
  const options: fc.Arbitrary<unknown>[] = [];
  const numeric = types.includes('integer') || types.includes('number');
  if (mode === 'json') {
    const wrong = Object.keys(JSON_TYPES).filter(
      (t) => types.length > 0 && !types.includes(t) && !(t === 'integer' && types.includes('number')),
    );
    if (wrong.length) options.push(fc.constantFrom(...wrong).chain((t) => JSON_TYPES[t]!));
  } else if (numeric || types.includes('boolean')) {
    options.push(fc.constantFrom('abc', '1.5', ' ', '1e400', 'NaN', '0x10', '--1', '１２'));
  }
  if (Array.isArray(s.enum)) options.push(fc.oneof(fc.constantFrom(...BAD_ENUM), fc.string({ maxLength: 8 })));
  if (numeric) {
    if (typeof s.minimum === 'number')
      options.push(
        fc.integer({ min: 1, max: 1_000_000 }).map((d) => s.minimum - d),
        fc.constant(s.minimum - 0.5),
      );
    if (typeof s.maximum === 'number')
      options.push(
        fc.integer({ min: 1, max: 1_000_000 }).map((d) => s.maximum + d),
        fc.constant(s.maximum + 0.5),
      );
    if (types.includes('integer') && !types.includes('number')) options.push(fc.constantFrom(1.5, -0.25, 1e300, -1e300));
  }
  if (types.includes('string') && !s.enum) {
    if (typeof s.maxLength === 'number')
      options.push(
        fc.integer({ min: 1, max: 64 }).map((d) => 'x'.repeat(s.maxLength + d)),
        fc.constant('x'.repeat(s.maxLength * 2 + 10)),
      );
    if (s.minLength) options.push(fc.constant('x'.repeat(s.minLength - 1)));
    if (s.pattern) options.push(fc.constantFrom(...BAD_PATTERN));
    if (s.format && BAD_FORMAT[s.format]) options.push(fc.constantFrom(...BAD_FORMAT[s.format]!));
  }
  if (types.includes('array')) {
    const item = s.items ? validArb(s.items, hints, name) : fc.jsonValue();
    if (typeof s.maxItems === 'number') options.push(fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 3 }));
    const badItem = s.items ? invalidArb(s.items, hints, mode, name) : undefined;
    if (badItem)
      options.push(
        fc.tuple(fc.array(item, { maxLength: 3 }), badItem, fc.nat()).map(([list, bad, at]) => {
          const l = [...list];
          l.splice(at % (l.length + 1), 0, bad);
          return l;
        }),
      );
  }
  if (types.includes('object') && mode === 'json') {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const valid = validArb({ ...s, type: 'object' }, hints, name) as fc.Arbitrary<Record<string, unknown>>;
    const required = ((s.required ?? []) as string[]).filter((k) => k in props);
    if (required.length) {
      options.push(
        fc.tuple(valid, fc.constantFrom(...required)).map(([o, k]) => {
          const c = { ...o };
          delete c[k];
          return c;
        }),
      );
    }
    if (s.additionalProperties === false || s.unevaluatedProperties === false) {
      options.push(
        fc
          .tuple(
            valid,
            fc.constantFrom('unknown_field', 'admin', 'id', 'client_user_id', '__proto__x', 'Title'),
            fc.jsonValue({ maxDepth: 1 }),
          )
          .map(([o, k, v]) => ({ ...o, [k]: v })),
      );
    }
    if (s.minProperties) options.push(fc.constant({}));
    const nested = Object.entries(props).flatMap(([k, v]) => {
      const bad = invalidArb(v, hints, mode, k);
      return bad ? [fc.tuple(valid, bad).map(([o, b]) => ({ ...o, [k]: b }))] : [];
    });
    if (nested.length) options.push(fc.oneof(...nested));
  }
  for (const branch of (s.oneOf ?? s.anyOf ?? []) as Schema[]) {
    const bad = invalidArb(branch, hints, mode, name);
    if (bad) options.push(bad);
  }
  return options.length ? fc.oneof(...options) : undefined;
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: coerce ? 'array' : false, useDefaults: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}
const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);
const compiled = new Map<string, ValidateFunction>();

/**
 * Whether a value satisfies the schema, as the server's Ajv sees it: a JSON body as it is, a
 * parameter (a string) coerced to the schema's type first. As lenient as the server or more
 * (the server's uuid and date formats are stricter), so a value judged invalid here is invalid there.
 */
export function schemaValidator(schema: Schema, mode: 'json' | 'param'): (value: unknown) => boolean {
  const wrapped = mode === 'param' ? { type: 'object', properties: { v: schema }, required: ['v'] } : schema;
  const key = `${mode}:${JSON.stringify(wrapped)}`;
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = (mode === 'param' ? coercingAjv : strictAjv).compile(wrapped)));
  return mode === 'param' ? (value) => validate({ v: asParameter(schema, value) }) : (value) => validate(structuredClone(value));
}

/**
 * A parameter's value as the server validates it: a list (every array the spec's query parameters
 * have is sent comma-separated, `style: form, explode: false`) split at its commas first, as
 * src/http/comma-list.ts does.
 */
function asParameter(schema: Schema, value: unknown): unknown {
  if (!typesOf(schema).includes('array') || typeof value !== 'string') return value;
  return value === '' ? [] : value.split(',');
}
