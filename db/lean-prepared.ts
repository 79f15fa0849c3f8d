// A prepared read on the server Postgres, run without Drizzle's execution layer. Drizzle still
// builds the query (its SQL, its parameters, the columns it selects); this runs the statement
// with postgres.js and turns each row into the same object Drizzle would, through the same
// columns' decoders. What it leaves out, per call: Drizzle's nested async functions (around its
// tracing spans and its result cache, neither of which we use), and its row mapping, which for
// every column of every row asks each field what kind it is by walking prototypes and builds
// the object along an iterator of its path. Those cost a gig read ~8 µs of CPU, 7% of the whole
// request (bench:pipeline's CPU profile, 2026-11-27).
//
// It reads fields that Drizzle's types mark private (the statement's client and its selected
// fields). A query whose shape it does not recognise (PGlite's, a nested selection, a logger or
// a cache, a field that is neither a column nor an SQL expression) keeps Drizzle's own execute:
// leanPrepared answers undefined. tests/lean-prepared.test.ts holds its rows to Drizzle's, value
// for value, on the shapes the app's prepared reads have.
import { Column, type DriverValueDecoder, is, NoopLogger, noopDecoder, Param, Placeholder, SQL } from 'drizzle-orm';
import { NoopCache } from 'drizzle-orm/cache/core';
import { PostgresJsPreparedQuery } from 'drizzle-orm/postgres-js';

export interface Executable<R> {
  execute(placeholders?: Record<string, unknown>): Promise<R>;
}

/** What a PostgresJsPreparedQuery holds, as Drizzle 0.45 names it. */
interface DrizzleInternals {
  client: { unsafe(query: string, params: unknown[], options: { prepare: boolean }): { values(): Promise<unknown[][]> } };
  queryString: string;
  params: unknown[];
  prepare: boolean;
  logger: unknown;
  cache: unknown;
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: unknown;
}

/**
 * One parameter of the statement: a constant, or a placeholder's value (through its column's
 * encoder when it has one). Drizzle's fillPlaceholders does the same, but asks each parameter
 * what it is on every call; this asks once, when the query is built.
 */
type Fill = (values: Record<string, unknown>) => unknown;

function fillOf(param: unknown): Fill {
  const placeholder = is(param, Placeholder) ? param : is(param, Param) && is(param.value, Placeholder) ? param.value : undefined;
  if (!placeholder) return () => param;
  const name = placeholder.name;
  const encoder = is(param, Param) ? param.encoder : undefined;
  return (values) => {
    if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
    return encoder ? encoder.mapToDriverValue(values[name]) : values[name];
  };
}

type Decode = ((value: unknown) => unknown) | undefined;

/**
 * How a selected field's value comes out of a row, as Drizzle's mapResultRow decodes it: a column
 * or an SQL expression (an aggregate mapped with mapWith) through its decoder; undefined for a
 * decoder that hands the value on as it came; null for a field this does not handle.
 */
function decoderOf(field: unknown): Decode | null {
  // An SQL expression's decoder is internal in Drizzle's types, as the statement's fields are.
  const sqlDecoder = (expression: SQL) => (expression as unknown as { decoder: DriverValueDecoder<unknown, unknown> }).decoder;
  const decoder = is(field, Column)
    ? field
    : is(field, SQL)
      ? sqlDecoder(field)
      : is(field, SQL.Aliased)
        ? sqlDecoder(field.sql)
        : undefined;
  if (!decoder) return null;
  if (decoder.mapFromDriverValue === Column.prototype.mapFromDriverValue || decoder === noopDecoder) return undefined;
  return (value) => decoder.mapFromDriverValue(value);
}

type RowOf = (row: unknown[]) => Record<string, unknown>;

/**
 * What turns a row's values into its object: `{ key: value, ... }` for these keys, each value
 * through its decoder (null stays null), as Drizzle's mapResultRow does. Made once per query as an
 * object literal (as fast-json-stringify and Ajv make their code), so that every row gets its one
 * hidden class at once: built key by key in a loop, a row went through a hidden-class transition
 * and a megamorphic keyed store for each of its columns. Keys are the selection's own property
 * names, never request data (a `__proto__` key sets the prototype in a literal as the store in
 * Drizzle's loop does: tests/lean-prepared.test.ts).
 */
function rowMaker(keys: string[], decoders: Decode[]): RowOf {
  const values = keys.map(
    (key, i) => `${JSON.stringify(key)}: ${decoders[i] ? `row[${i}] === null ? null : decode[${i}](row[${i}])` : `row[${i}]`}`,
  );
  return new Function('decode', `return (row) => ({ ${values.join(', ')} });`)(decoders) as RowOf;
}

/** The lean form of Drizzle's prepared query, or undefined when the query is not one it can run. */
export function leanPrepared<R>(query: Executable<R>): Executable<R> | undefined {
  if (!is(query, PostgresJsPreparedQuery)) return undefined;
  const q = query as unknown as DrizzleInternals;
  const plain =
    q.fields !== undefined &&
    q.customResultMapper === undefined &&
    is(q.logger, NoopLogger) &&
    (q.cache === undefined || is(q.cache, NoopCache)) &&
    typeof q.client?.unsafe === 'function' &&
    // One level of path: a flat selection, to which Drizzle's rule for null joined tables never applies.
    q.fields.every(({ path }) => path.length === 1);
  if (!plain) return undefined;
  const found = q.fields!.map(({ field }) => decoderOf(field));
  if (found.includes(null)) return undefined;
  const decoders = found as Decode[];

  const { client, queryString, prepare } = q;
  const fills = q.params.map(fillOf);
  const rowOf = rowMaker(
    q.fields!.map(({ path }) => path[0]!),
    decoders,
  );
  return {
    async execute(values = {}) {
      const params = fills.map((fill) => fill(values));
      const rows = await client.unsafe(queryString, params, { prepare }).values();
      return rows.map(rowOf) as R;
    },
  };
}
