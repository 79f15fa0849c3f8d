// Raw SQL helpers shared by the repositories and by discovery's ranking SQL (src/search).
import { SQL, StringChunk } from 'drizzle-orm';
import type { Executor } from './client.ts';

/** Raw rows from db.execute, whichever driver (postgres.js returns an array, PGlite `{ rows }`). */
export async function rowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Each template's string chunks, made on its first use (a template's strings array is the same object at every call). */
const chunksOf = new WeakMap<TemplateStringsArray, StringChunk[]>();

/**
 * An empty statement to append chunks to. Drizzle's constructor asks `is(chunk, Table)` of each
 * chunk it is given, which walks the prototype chain of every chunk that is not one (about a
 * third of the time to build a search's statement); chunks appended after it, as its own `append`
 * does, skip that. Its list of tables (for Drizzle's query cache, unused here) stays empty: these
 * statements hold strings, values and other statements, never a table object.
 */
function emptyStatement(): { query: SQL; chunks: unknown[] } {
  const query = new SQL([]);
  return { query, chunks: query.queryChunks };
}

/**
 * Drizzle's `sql` tag, building the same statement, but with each template's string chunks made
 * once: Drizzle's makes a chunk (and an array in it) for each string of each call and iterates
 * the values with entries(), ~60 KB per search for discovery's statements (a few hundred
 * templates each). Chunks are never changed once made, so sharing them is safe.
 */
function cachedSql(strings: TemplateStringsArray, ...values: unknown[]): SQL {
  let texts = chunksOf.get(strings);
  if (!texts) chunksOf.set(strings, (texts = strings.map((text) => new StringChunk(text))));
  const { query, chunks } = emptyStatement();
  // As Drizzle's: an empty template without values has no chunk at all.
  if (values.length === 0 && strings[0] === '') return query;
  chunks.push(texts[0]);
  for (let i = 0; i < values.length; i++) chunks.push(values[i], texts[i + 1]);
  return query;
}

/** Drizzle's `sql.raw`: the text as it is, appended rather than given to the constructor. */
function raw(text: string): SQL {
  const { query, chunks } = emptyStatement();
  chunks.push(new StringChunk(text));
  return query;
}

/** Drizzle's `sql.join`: the chunks with `separator` between them, appended rather than given to the constructor. */
function join(items: readonly unknown[], separator?: SQL | StringChunk): SQL {
  const { query, chunks } = emptyStatement();
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && separator !== undefined) chunks.push(separator);
    chunks.push(items[i]);
  }
  return query;
}

/** `sql` as Drizzle's (tag, `sql.raw`, `sql.join`), for statements built on every request (discovery's). */
export const sql = Object.assign(cachedSql, { raw, join });

const COMMA = new StringChunk(', ');
/** `$1, $2, ...`: each item a parameter, all in one SQL (a search builds dozens of these; one `sql` per item cost ~23 KB a search). */
export const list = (items: readonly string[]): SQL => join(items, COMMA);
export const textArray = (items: readonly string[]) => (items.length ? sql`ARRAY[${list(items)}]::text[]` : sql`'{}'::text[]`);

/** Values Drizzle sends as parameters as they are. */
const PLAIN = new Set(['string', 'number', 'boolean', 'bigint']);

/**
 * A plain value as a SQL literal, or undefined for one that has none here (a Date, NaN, ...).
 * Strings are quoted with quotes doubled, which is the whole of escaping with
 * standard_conforming_strings on (db/client.ts sets it on every server connection; PGlite has it
 * on); a negative number is parenthesised, so that no minus before it can make a comment of `--`.
 */
export function sqlLiteral(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return `'${value.replaceAll("'", "''")}'`;
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return value < 0 ? `(${value})` : String(value);
    case 'bigint':
      return value < 0n ? `(${value})` : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return undefined;
  }
}

/**
 * The same statement as `query`, as one level of text and values. Drizzle builds a statement's
 * text by merging each nested `sql` with its parent, strings and parameter arrays copied at every
 * level: for discovery's ranking statement (a few thousand characters, nested ten deep) that
 * allocated 115-300 KB per search, the largest part of what the request allocates. One walk
 * here, then Drizzle's build over a flat list, gives the same text and parameters (tests compare
 * them). Only `sql`, `sql.raw`, `sql.join` and plain values are flattened; a query holding
 * anything else (columns, tables, placeholders, arrays, encoded params) is returned as it is.
 *
 * `inline`: the values written into the text as literals (sqlLiteral), so that the statement has
 * no parameters. postgres.js sends a statement with parameters that is not a named prepared one
 * as two round trips (Parse and Describe, then on the answer Bind and Execute, to learn the
 * parameters' types); one without parameters goes in one. On this repository's VM a round trip
 * costs ~0.2 ms. The database plans it with the values either way (an unnamed statement gets a
 * custom plan). When a value has no literal, the values stay parameters.
 */
export function flatSql(query: SQL, options: { inline?: boolean } = {}): SQL {
  // The statement as texts and values in turn: texts[i] comes before values[i], `text` ends it.
  const texts: string[] = [];
  const values: unknown[] = [];
  let text = '';
  /**
   * False when the tree holds something only Drizzle's own build knows how to write. `instanceof`,
   * not Drizzle's `is()`: one copy of Drizzle here, and `is()` walks the prototype chain of every
   * chunk it does not match, which was half the time of building a search's statement.
   */
  const walk = (list: readonly unknown[]): boolean => {
    for (const chunk of list) {
      if (chunk instanceof StringChunk) text += chunk.value.length === 1 ? chunk.value[0] : chunk.value.join('');
      else if (chunk instanceof SQL) {
        if (!walk(chunk.queryChunks)) return false;
      } else if (chunk === undefined) continue;
      else if (chunk === null || PLAIN.has(typeof chunk) || chunk instanceof Date) {
        texts.push(text);
        values.push(chunk);
        text = '';
      } else return false;
    }
    return true;
  };
  if (!walk(query.queryChunks)) return query;
  if (options.inline) {
    const literals = values.map(sqlLiteral);
    if (!literals.includes(undefined)) return raw(`${texts.map((t, i) => t + literals[i]).join('')}${text}`);
  }
  const flat = emptyStatement();
  values.forEach((value, i) => flat.chunks.push(new StringChunk(texts[i]!), value));
  flat.chunks.push(new StringChunk(text));
  return flat.query;
}

/** rowsOf for a statement built on each request: flattened, with its values as literals (one round trip, see flatSql). */
export function literalRowsOf<T>(db: Executor, query: SQL): Promise<T[]> {
  return rowsOf<T>(db, flatSql(query, { inline: true }));
}
