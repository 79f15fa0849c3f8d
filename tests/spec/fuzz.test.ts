// A schema-driven fuzzer over every operation of openapi.yaml, with fast-check: requests generated
// from each operation's parameter and body schemas (tests/helpers/schema-arbitrary.ts), valid ones
// and broken ones, sent over HTTP with the world's credentials (tests/helpers/world.ts). It fails on
// a 5xx, a status the operation does not declare, a body that does not match its schema (the spec
// check in callOperation), a broken request that is not refused as the spec says, and any refused
// request (4xx) that changed the database (a fingerprint of every table right before and after).
//
// Seeded and bounded: FUZZ_SEED (default below) fixes every generated request; each operation's
// properties run a few dozen requests within a share of FUZZ_BUDGET_MS. A failure prints the seed
// and the command that replays it. Each operation that can change state fuzzes a world of its own,
// so one operation's runs do not depend on another's, and `-t <operationId>` replays one alone.
import { openCursor, sealCursor } from '../../src/cursor-seal.ts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpecOperation } from '../../src/spec.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startFakeChat, type FakeChat } from '../fakes/chat-completions.ts';
import {
  callOperation,
  changedTables,
  fingerprint,
  isUnsafe,
  jsonBodyOf,
  label,
  operations,
  parametersOf,
  unknownOperations,
  uploadOf,
  type Fingerprint,
  type OperationRequest,
  type Parameter,
} from '../helpers/operations.ts';
import { inline, invalidArb, schemaValidator, validArb, type IdHints } from '../helpers/schema-arbitrary.ts';
import { brokenUploadArbs, describeParts, formOf, validPartsArb, type Part, type Upload } from '../helpers/upload-arbitrary.ts';
import {
  buildWorld,
  credentialsOf,
  pathParameters,
  RESOURCE_OF_FIELD,
  RESOURCE_OF_PARAMETER,
  worldFieldId,
  worldPathIds,
  type World,
} from '../helpers/world.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
/**
 * The time the whole file may take, in milliseconds, from its start (server, worlds and tampered
 * cursors included): each property gets its share of what is left, and stops when that is up.
 */
// 34 s before the webhook operations; their 24 properties and the 7 worlds of their changes (a
// world takes a second or two on a server Postgres) need about 18 s more; the vouch and review
// operations' 8 properties, and the two completed contracts every world now holds, 8 s more; the
// resume operations' 6 properties and 2 worlds about 6 s; the credits operations' 6 properties and
// the world of deductions, 5 s more; the dispute operations' 18 properties, their 8 worlds and the
// dispute (with two pieces of evidence) every world now holds, about 10 s.
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 81_000);
/** Requests per operation and property, at most (FUZZ_RUNS multiplies them, to explore with a larger budget). */
const RUNS = { valid: 20 * Number(process.env.FUZZ_RUNS ?? 1), invalid: 30 * Number(process.env.FUZZ_RUNS ?? 1) };

/**
 * Operations the fuzzer cannot exercise fully, with why. Each must name an operation of the spec
 * (a test checks). An operation whose request body is neither JSON nor a file upload (multipart
 * with the spec's file fields: tests/helpers/upload-arbitrary.ts) must be listed: the generator
 * makes only those.
 */
const FUZZ_EXCEPTIONS: Record<string, string> = {};

/**
 * Failures the fuzzer found, kept as regression tests with a minimal reproduction. While a name is
 * in KNOWN_BUGS its reproduction is skipped and the fuzzer does not send requests that `matches`;
 * delete the name when the server is fixed, and both run again.
 */
interface Reproduction {
  name: string;
  operationId: string;
  /** Does a generated request hit this bug? (Only consulted while the name is in KNOWN_BUGS.) */
  matches(request: Generated): boolean;
  /** The minimal request, as `caller` (the world's). */
  request(w: World): Promise<{ caller: Caller; request: OperationRequest }>;
  /** What the spec allows in answer. */
  expect: number[];
}

/** The JSON inside a cursor this API made (cursors are sealed: src/cursor-seal.ts). */
function cursorJson(cursor: string | undefined): Record<string, unknown> | undefined {
  const value = openCursor(cursor ?? '');
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

const SEARCH_CURSOR_TIME = 'searchGigs: a cursor whose time (t) is beyond the range of a Date (|t| > 8.64e15 ms) gets 500, not 400';

const REPRODUCTIONS: Reproduction[] = [
  {
    // GET /api/discovery/gigs?limit=1 -> next_cursor; decode it (base64url JSON {f, t, s, i}), set
    // t to 1e300 (or anything beyond +-8.64e15), encode it, and ask for the next page with the same
    // query: 500 INTERNAL. The ranked cursor's t is checked to be a finite number but not a valid
    // time, and `new Date(t)` is then an Invalid Date. The recommendations' cursors, decoded by the
    // same function, answer 200 with an empty page instead.
    name: SEARCH_CURSOR_TIME,
    operationId: 'searchGigs',
    matches: (g) => {
      const t = cursorJson(String(g.query.cursor))?.t;
      return typeof t === 'number' && !(Math.abs(t) <= 8.64e15);
    },
    async request(w) {
      const first = await callOperation(server, byOperationId('searchGigs'), {
        query: { limit: '1' },
        headers: credentials(w, byOperationId('searchGigs'), 'client'),
      });
      const cursor = sealCursor({ ...cursorJson(first.body.next_cursor), t: 1e300 });
      return { caller: 'client', request: { query: { limit: '1', cursor } } };
    },
    expect: [400],
  },
];
const KNOWN_BUGS = new Set<string>([]);

// --- generating requests ------------------------------------------------------------------

type Caller = 'client' | 'worker';

interface Generated {
  caller: Caller;
  path: Record<string, string>;
  /** An array repeats the parameter (`?status=open&status=paused`). */
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: unknown;
  /** Bytes sent as they are, with `headers['content-type']` (malformed JSON, another media type). */
  rawBody?: string;
  /** A multipart form, for an operation that takes files; wins over both. */
  parts?: Part[];
  /**
   * For a broken request: what was broken, and the statuses the spec allows for it (undefined:
   * whatever the operation declares, short of a 5xx; refused, it must still change nothing).
   */
  broken?: { what: string; expect?: number[] };
}

/** Ids of the world to prefer for a parameter or field, by what it names. */
function hintsFor(w: World, op: SpecOperation): IdHints {
  const byParameter = new Map(pathParameters(op.path).map((p) => [p.name, RESOURCE_OF_PARAMETER[p.key]]));
  return (name) => {
    if (!name) return [];
    const kind = byParameter.get(name) ?? RESOURCE_OF_FIELD[name]?.kind;
    if (!kind) return [];
    const ids = Object.values(w.ids[kind] as Record<string, string>);
    return kind === 'user' ? [...ids, w.worker2.userId, w.stranger.userId] : ids;
  };
}

/** Header values must be bytes a fetch can send: printable ASCII (and tab). */
const sendableHeader = (v: string) => /^[\t\x20-\x7e]*$/.test(v);
/** A path segment that would not route elsewhere once the URL is normalised. */
const routableSegment = (v: string) => v !== '' && v !== '.' && v !== '..';

const b64 = (text: string) => Buffer.from(text).toString('base64url');

interface OperationModel {
  op: SpecOperation;
  params: Parameter[];
  body?: { schema: Record<string, any>; required: boolean };
  /** The file fields of a multipart body (src/http/uploads.ts reads them from the spec). */
  upload?: Upload;
  /** Requests for real second pages (a first page with limit=1 had a `next_cursor`), to send and to tamper with. */
  pages: Generated[];
}

function paramValueArb(p: Parameter, hints: IdHints): fc.Arbitrary<string> {
  let arb = validArb(inline(p.schema), hints, p.name).map((v) => String(v));
  if (p.in === 'header') arb = arb.filter(sendableHeader);
  if (p.in === 'path') arb = arb.filter(routableSegment);
  return arb;
}

/**
 * A valid request: every required parameter, some optional ones, a body that satisfies the schema.
 * Left out on purpose: `Idempotency-Key` (a valid key records the response it gets, 4xx included,
 * by design: idempotency.test.ts covers it) and random cursors (schema-valid but never real: the
 * invalid property sends those); real cursors are sent instead.
 */
function validRequestArb(m: OperationModel, w: World): fc.Arbitrary<Generated> {
  const hints = hintsFor(w, m.op);
  const parts: Record<string, fc.Arbitrary<[Parameter, string | undefined]>> = {};
  for (const p of m.params) {
    if (p.name.toLowerCase() === 'idempotency-key') continue;
    const value: fc.Arbitrary<string | undefined> =
      p.name === 'cursor'
        ? fc.constant(undefined)
        : p.required
          ? paramValueArb(p, hints)
          : fc.option(paramValueArb(p, hints), { nil: undefined, freq: 2 });
    parts[`${p.in}:${p.name}`] = value.map((v) => [p, v] as [Parameter, string | undefined]);
  }
  const body: fc.Arbitrary<unknown> = !m.body
    ? fc.constant(undefined)
    : m.body.required
      ? validArb(inline(m.body.schema), hints)
      : fc.option(validArb(inline(m.body.schema), hints), { nil: undefined });
  const files: fc.Arbitrary<Part[] | undefined> = m.upload ? validPartsArb(m.upload) : fc.constant(undefined);
  const fresh = fc
    .record({ caller: fc.constantFrom<Caller>('client', 'worker'), params: fc.record(parts), body, files })
    .map(({ caller, params, body, files }) => {
      const g: Generated = { caller, path: {}, query: {}, headers: {}, body, parts: files };
      for (const [p, v] of Object.values(params)) if (v !== undefined) place(g, p, v);
      return g;
    });
  // A cursor continues only the query it came from: real second pages are sent as they were made.
  return m.pages.length ? fc.oneof({ arbitrary: fresh, weight: 4 }, { arbitrary: fc.constantFrom(...m.pages), weight: 1 }) : fresh;
}

function place(g: Generated, p: Parameter, value: string) {
  if (p.in === 'path') g.path[p.name] = value;
  else if (p.in === 'query') g.query[p.name] = value;
  else if (p.in === 'header') g.headers[p.name.toLowerCase()] = value;
}

/**
 * Values to put in a cursor's fields: numbers no cursor holds (beyond the range of a Date, of an
 * int, of a double's precision; negative; fractional), other types, ids of nothing.
 */
const ODD_VALUES: unknown[] = [
  1e300,
  -1e300,
  8.64e15 + 1,
  -8.64e15 - 1,
  Number.MAX_SAFE_INTEGER,
  2 ** 31,
  -1,
  0,
  0.5,
  1e-300,
  '',
  'x',
  '1',
  null,
  true,
  [],
  {},
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

/** Ways to spoil a real cursor: a field set to something odd, removed or added, the bytes changed. */
function tamperedCursorArb(cursor: string): fc.Arbitrary<string> {
  const odd = fc.oneof(fc.constantFrom(...ODD_VALUES), fc.jsonValue({ maxDepth: 1 }), fc.double());
  return fc.tuple(fc.nat(), odd, fc.constantFrom('set', 'delete', 'add', 'flip', 'truncate', 'wrap')).map(([n, value, how]) => {
    // Resealed after each change, so that the change reaches the server's checks of each field.
    const decoded = cursorJson(cursor)!;
    const keys = Object.keys(decoded);
    const key = keys[n % keys.length]!;
    switch (how) {
      case 'set':
        return sealCursor({ ...decoded, [key]: value });
      case 'delete': {
        const c = { ...decoded };
        delete c[key];
        return sealCursor(c);
      }
      case 'add':
        return sealCursor({ ...decoded, extra: value });
      case 'flip': {
        const at = n % cursor.length;
        return cursor.slice(0, at) + (cursor[at] === 'A' ? 'B' : 'A') + cursor.slice(at + 1);
      }
      case 'truncate':
        return cursor.slice(0, Math.max(1, n % cursor.length));
      default:
        return sealCursor([decoded]);
    }
  });
}

/**
 * A broken request: a valid one with one thing spoiled. Which things depends on the operation:
 * each parameter (malformed uuids in paths, out-of-range numbers, unknown enum values, over-long
 * strings...), the body (wrong types, missing required fields, unknown fields, bad values deep
 * inside; malformed JSON; another media type; none when one is required) and the cursor (random
 * strings, random base64 JSON, tampered real cursors).
 */
function invalidRequestArb(m: OperationModel, w: World): fc.Arbitrary<Generated> | undefined {
  const hints = hintsFor(w, m.op);
  const base = validRequestArb(m, w);
  const breakers: fc.Arbitrary<Generated>[] = [];
  const spoil = (arb: fc.Arbitrary<(g: Generated) => Generated['broken'] | undefined>) =>
    breakers.push(
      fc.tuple(base, arb).map(([g, f]) => {
        const copy: Generated = { ...g, path: { ...g.path }, query: { ...g.query }, headers: { ...g.headers } };
        const broken = f(copy);
        return broken ? { ...copy, broken } : copy;
      }),
    );

  for (const p of m.params) {
    const schema = inline(p.schema);
    const bad = invalidArb(schema, hints, 'param', p.name);
    if (!bad) continue;
    const isValid = schemaValidator(schema, 'param');
    // A valid Idempotency-Key records the response it gets, by design (see validRequestArb): a
    // "broken" key that happens to be valid is not sent.
    const isKey = p.name.toLowerCase() === 'idempotency-key';
    spoil(
      bad
        .map(String)
        .filter((v) => (p.in !== 'header' || sendableHeader(v)) && (p.in !== 'path' || routableSegment(v)))
        .filter((v) => !isKey || !isValid(v))
        .map((v) => (g: Generated) => {
          place(g, p, v);
          // Judged as the server's Ajv would: a value that happens to be valid is a valid request.
          return isValid(v) ? undefined : { what: `${p.in}.${p.name} = ${JSON.stringify(v)}`, expect: [400] };
        }),
    );
  }
  if (m.params.some((p) => p.name === 'cursor' && p.in === 'query')) {
    const junk = fc.oneof(
      fc.string({ minLength: 1, maxLength: 60 }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v))),
      fc.base64String({ minLength: 4, maxLength: 80 }),
    );
    // A cursor is checked by the handler, after the caller's access to what it lists (403, 404).
    spoil(
      junk.map((v) => (g: Generated) => {
        g.query.cursor = v;
        return { what: `query.cursor = ${JSON.stringify(v)} (not a cursor)`, expect: [400, 403, 404] };
      }),
    );
    // A tampered cursor, with the query it belongs to, may still be a valid one (another position):
    // 200 is allowed, 5xx is not.
    for (const page of m.pages) {
      breakers.push(
        tamperedCursorArb(String(page.query.cursor)).map((v) => ({
          ...page,
          query: { ...page.query, cursor: v },
          broken: { what: `query.cursor = ${v} (tampered: ${JSON.stringify(cursorJson(v) ?? 'seal broken')})`, expect: [200, 400] },
        })),
      );
    }
  }
  if (m.body) {
    const schema = inline(m.body.schema);
    const isValid = schemaValidator(schema, 'json');
    const bad = invalidArb(schema, hints, 'json');
    if (bad) {
      spoil(
        bad.map((v) => (g: Generated) => {
          g.body = v;
          return isValid(v) ? undefined : { what: `body = ${JSON.stringify(v)?.slice(0, 300)}`, expect: [400] };
        }),
      );
    }
    spoil(
      fc.constantFrom('{"title": "half', '{,}', '[1,]', 'nul', '"unterminated').map((text) => (g: Generated) => {
        g.body = undefined;
        g.rawBody = text;
        g.headers['content-type'] = 'application/json';
        return { what: `body = malformed JSON ${JSON.stringify(text)}`, expect: [400] };
      }),
    );
    spoil(
      fc
        .constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
          'application/jsonx',
          'text/json',
          'multipart/form-data; boundary=x',
        )
        .map((type) => (g: Generated) => {
          g.body = undefined;
          g.rawBody = 'title=x';
          g.headers['content-type'] = type;
          return { what: `body of type ${type}`, expect: [415] };
        }),
    );
    // Keys that poison prototypes are unknown fields of these closed objects: 400 like any other.
    spoil(
      fc.constantFrom('"__proto__": {"admin": true}', '"constructor": {"prototype": {"admin": true}}').map((key) => (g: Generated) => {
        const fields = JSON.stringify(g.body && typeof g.body === 'object' && !Array.isArray(g.body) ? g.body : {}).slice(1, -1);
        g.rawBody = `{${key}${fields ? `, ${fields}` : ''}}`;
        g.body = undefined;
        g.headers['content-type'] = 'application/json';
        return { what: `body = ${g.rawBody.slice(0, 300)}`, expect: [400] };
      }),
    );
    // A number JSON can write but a double cannot hold (1e400 parses as Infinity). It is an integer
    // all the same, so the schema refuses it only where a maximum applies: no status is expected,
    // only no 5xx (and no change if refused).
    spoil(
      fc.constantFrom('1e400', '-1e400', '1e-400', '-0').map((literal) => (g: Generated) => {
        const text = withNumber(g.body, literal);
        if (text === undefined) return undefined;
        g.rawBody = text;
        g.body = undefined;
        g.headers['content-type'] = 'application/json';
        return { what: `body = ${text.slice(0, 300)}` };
      }),
    );
    if (m.body.required) {
      spoil(
        fc.constant((g: Generated) => {
          g.body = undefined;
          return { what: 'no body (required)', expect: [400] };
        }),
      );
    }
  }
  if (m.upload) {
    for (const arb of brokenUploadArbs(m.upload)) {
      spoil(
        arb.map((make) => (g: Generated) => {
          const broken = make(g.parts ?? []);
          g.parts = broken.parts;
          if (broken.raw !== undefined) {
            g.parts = undefined;
            if (broken.raw) {
              g.rawBody = broken.raw.body;
              g.headers['content-type'] = broken.raw.contentType;
            }
          }
          return { what: broken.what, expect: broken.expect };
        }),
      );
    }
  }
  if (!m.op.operation.requestBody && isUnsafe(m.op)) {
    // A body the operation does not take: the spec says nothing of it, so only "no 5xx, and no
    // change when refused" applies.
    spoil(
      fc.constantFrom('{"unexpected": true}', '{"half', '[]').map((text) => (g: Generated) => {
        g.rawBody = text;
        g.headers['content-type'] = 'application/json';
        return { what: `an unexpected body ${text}` };
      }),
    );
  }
  for (const p of m.params.filter((q) => q.in === 'query')) {
    // The same parameter twice: one value or a 400, whichever; no 5xx.
    const value = paramValueArb(p, hints);
    spoil(
      fc.tuple(value, value).map(([a, b]) => (g: Generated) => {
        g.query[p.name] = [a, b];
        return { what: `query.${p.name} twice: ${JSON.stringify([a, b])}` };
      }),
    );
  }
  return breakers.length ? fc.oneof(...breakers) : undefined;
}

/** The JSON text of `body` with its first number (depth first) written as `literal`; undefined without numbers. */
function withNumber(body: unknown, literal: string): string | undefined {
  const marker = '\u0001number\u0001';
  let done = false;
  const swap = (v: unknown): unknown => {
    if (done) return v;
    if (typeof v === 'number') {
      done = true;
      return marker;
    }
    if (Array.isArray(v)) return v.map(swap);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]));
    return v;
  };
  const swapped = JSON.stringify(swap(body));
  return done ? swapped.replace(JSON.stringify(marker), literal) : undefined;
}

// --- running ------------------------------------------------------------------------------

let server: TestServer;
let chat: FakeChat;
let sharedWorld: World;
const startedAt = { ms: 0 };
let propertiesLeft = 0;
/** Statuses seen, per operation and property: printed with FUZZ_STATS=1. */
const stats: Record<string, Record<string, number>> = {};
let skippedKnown = 0;
const timings = { worlds: 0, tampered: 0 };

const credentials = (w: World, op: SpecOperation, caller: Caller) => credentialsOf(w[caller], op);

function toRequest(w: World, op: SpecOperation, g: Generated): OperationRequest {
  return {
    path: g.path,
    query: g.query,
    headers: { ...credentials(w, op, g.caller), ...g.headers },
    body: g.body,
    rawBody: g.rawBody,
    form: g.parts && formOf(g.parts),
  };
}

const show = (op: SpecOperation, g: Generated) =>
  `${op.method.toUpperCase()} ${op.path} as ${g.caller}\n  path ${JSON.stringify(g.path)} query ${JSON.stringify(g.query)} headers ${JSON.stringify(g.headers)}\n  body ${g.parts ? `form: ${describeParts(g.parts)}` : g.rawBody !== undefined ? JSON.stringify(g.rawBody) : JSON.stringify(g.body)?.slice(0, 500)}${g.broken ? `\n  broken: ${g.broken.what}` : ''}`;

async function send(w: World, m: OperationModel, g: Generated, tally: Record<string, number>): Promise<void> {
  if (REPRODUCTIONS.some((r) => KNOWN_BUGS.has(r.name) && r.operationId === m.op.operationId && r.matches(g))) {
    skippedKnown++;
    return;
  }
  const before = await fingerprint(server.db);
  let res;
  try {
    res = await callOperation(server, m.op, toRequest(w, m.op, g));
  } catch (error) {
    throw new Error(`${show(m.op, g)}\n${(error as Error).message}`);
  }
  tally[res.status] = (tally[res.status] ?? 0) + 1;
  if (res.status >= 500) throw new Error(`${show(m.op, g)}\n-> ${res.status} ${res.text}`);
  if (g.broken?.expect && !g.broken.expect.includes(res.status)) {
    throw new Error(`${show(m.op, g)}\n-> ${res.status}, expected ${g.broken.expect.join(' or ')}: ${res.text.slice(0, 500)}`);
  }
  if (res.status >= 400) {
    const changed = changedTables(before, await fingerprint(server.db));
    if (changed.length)
      throw new Error(`${show(m.op, g)}\n-> ${res.status} ${res.text.slice(0, 300)}\nbut it changed the tables ${changed.join(', ')}`);
  }
}

/** A seed per operation and property, from FUZZ_SEED: the same whatever runs before it. */
function seedFor(name: string): number {
  let h = SEED | 0;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x9e3779b1) | 0;
  return h;
}

async function runProperty(name: string, arb: fc.Arbitrary<Generated>, numRuns: number, run: (g: Generated) => Promise<void>) {
  const left = Math.max(0, BUDGET_MS - (Date.now() - startedAt.ms));
  const share = Math.max(150, Math.floor(left / Math.max(1, propertiesLeft)));
  propertiesLeft--;
  const seed = seedFor(name);
  // When the time is up, fast-check stops waiting for the request in flight, which still runs:
  // wait for it, or what it changes would be blamed on the next property's first request.
  let inFlight: Promise<void> = Promise.resolve();
  const tracked = (g: Generated) => (inFlight = run(g));
  try {
    try {
      await fc.assert(fc.asyncProperty(arb, tracked), { seed, numRuns, interruptAfterTimeLimit: share, markInterruptAsFailure: false });
    } catch (error) {
      // On a slow machine the share can run out before the first case finishes: run one case then,
      // without a time limit, so that no operation goes untried.
      if (!/interrupted after 0 tests/.test((error as Error).message)) throw error;
      await inFlight.catch(() => {});
      await fc.assert(fc.asyncProperty(arb, tracked), { seed, numRuns: 1 });
    }
  } catch (error) {
    const cause = (error as Error).cause instanceof Error ? `\n${((error as Error).cause as Error).message}` : '';
    await inFlight.catch(() => {});
    throw new Error(
      `fuzz failure in "${name}" (FUZZ_SEED=${SEED}, property seed ${seed}); replay: FUZZ_SEED=${SEED} npx vitest run tests/spec/fuzz.test.ts -t '${name.split(' ')[0]}'\n${(error as Error).message}${cause}`,
    );
  }
  await inFlight;
}

/**
 * A world as built: the last one again when nothing has changed in the database since it was built
 * (the operations since only got refusals), else a new one.
 */
let lastWorld: { world: World; print: Fingerprint };
async function freshWorld(): Promise<World> {
  if (changedTables(lastWorld.print, await fingerprint(server.db)).length === 0) return lastWorld.world;
  const world = await buildWorld(server);
  lastWorld = { world, print: await fingerprint(server.db) };
  return world;
}

const byOperationId = (id: string) => operations.find((o) => o.operationId === id)!;

// Read-only operations first, on one shared world; then each operation that can change state, on a
// world of its own (so that what one deletes or cancels does not starve the next).
const ordered = [...operations].sort((a, b) => Number(isUnsafe(a)) - Number(isUnsafe(b)));
/** Bodies the generator makes: JSON, and multipart with the spec's file fields. */
const generatable = (op: SpecOperation) => !op.operation.requestBody || jsonBodyOf(op) !== undefined || uploadOf(op) !== undefined;

beforeAll(async () => {
  // Thousands of requests from one address and key, on purpose: limits high enough not to interfere.
  // A language model on this machine (a fake), so that recommendations answer as configured
  // servers do: a 5xx is a failure here, and 503 is what a server without LLM_URL answers.
  chat = await startFakeChat();
  server = await startTestServer({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000', ...chat.env });
  startedAt.ms = Date.now();
  sharedWorld = await buildWorld(server);
  lastWorld = { world: sharedWorld, print: await fingerprint(server.db) };
});
afterAll(async () => {
  if (process.env.FUZZ_STATS)
    console.log(
      `fuzz statuses (FUZZ_SEED=${SEED}; ${skippedKnown} requests skipped as KNOWN_BUGS; ${timings.worlds} ms building worlds, ${timings.tampered} ms on tampered cursors, ${Date.now() - startedAt.ms} ms in all):\n${Object.entries(
        stats,
      )
        .map(([k, v]) => `${k.padEnd(40)} ${JSON.stringify(v)}`)
        .join('\n')}`,
    );
  await server?.close();
  await chat?.close();
});

for (const op of ordered) {
  const m: OperationModel = { op, params: parametersOf(op), pages: [] };
  const body = jsonBodyOf(op);
  if (body) m.body = { schema: body.schema, required: body.required };
  m.upload = uploadOf(op);
  const skip = !generatable(op) && FUZZ_EXCEPTIONS[op.operationId] !== undefined;

  describe(`${op.operationId}`, () => {
    let world: World;
    beforeAll(async () => {
      if (skip) return;
      const t0 = Date.now();
      world = isUnsafe(op) ? await freshWorld() : sharedWorld;
      timings.worlds += Date.now() - t0;
      // Real second pages: the first page with limit=1 (on the world's open gig where a gig is
      // needed), as each caller.
      m.pages = [];
      if (m.params.some((p) => p.name === 'cursor') && m.params.some((p) => p.name === 'limit')) {
        for (const caller of ['client', 'worker'] as const) {
          const first: Generated = { caller, path: worldPathIds(world, op.path, { gig: 'open' }), query: { limit: '1' }, headers: {} };
          for (const p of m.params.filter((q) => q.required && q.in === 'query')) first.query[p.name] = worldFieldId(world, p.name) ?? '';
          const res = await callOperation(server, op, toRequest(world, op, first));
          if (res.status === 200 && res.body.next_cursor)
            m.pages.push({ ...first, query: { ...first.query, cursor: res.body.next_cursor } });
        }
      }
    });

    const hasInput = m.params.length > 0 || m.body !== undefined || m.upload !== undefined;
    propertiesLeft += skip ? 0 : 2;
    (skip ? it.skip : it)(`${op.operationId} with valid inputs`, async () => {
      const tally = (stats[`${op.operationId} valid`] = {});
      await runProperty(`${op.operationId} valid`, validRequestArb(m, world), hasInput ? RUNS.valid : 1, (g) => send(world, m, g, tally));
    });
    // Not left to chance: each field of each real cursor set to each odd value, with the query it
    // belongs to (so that it reaches the position decoding). 200 or 400, never a 5xx.
    if (m.params.some((p) => p.name === 'cursor')) {
      (skip ? it.skip : it)(`${op.operationId} with every field of its cursor tampered`, async () => {
        if (!m.pages.length) return; // no second page in this world: the random properties still send junk cursors
        const tally = (stats[`${op.operationId} tampered`] = {});
        const page = m.pages[0]!;
        const decoded = cursorJson(String(page.query.cursor))!;
        const t0 = Date.now();
        const failures: string[] = [];
        for (const key of Object.keys(decoded)) {
          for (const value of ODD_VALUES) {
            const cursor = sealCursor({ ...decoded, [key]: value });
            const g: Generated = {
              ...page,
              query: { ...page.query, cursor },
              broken: { what: `query.cursor with ${key} = ${JSON.stringify(value)}: ${cursor}`, expect: [200, 400] },
            };
            await send(world, m, g, tally).catch((error: Error) => failures.push(error.message));
          }
        }
        timings.tampered += Date.now() - t0;
        expect(failures, `FUZZ_SEED does not matter here; every case:\n${failures.join('\n\n')}`).toEqual([]);
      });
    }
    (skip ? it.skip : it)(`${op.operationId} with broken inputs`, async () => {
      const arb = invalidRequestArb(m, world);
      if (!arb) {
        propertiesLeft--;
        return;
      } // takes no input that could be broken (e.g. getHealth)
      const tally = (stats[`${op.operationId} broken`] = {});
      await runProperty(`${op.operationId} broken`, arb, RUNS.invalid, (g) => send(world, m, g, tally));
    });
  });
}

describe('known bugs (reproductions of what the fuzzer found)', () => {
  if (REPRODUCTIONS.length === 0) it('has none', () => {});
  for (const r of REPRODUCTIONS) {
    (KNOWN_BUGS.has(r.name) ? it.skip : it)(r.name, async () => {
      const { caller, request } = await r.request(sharedWorld);
      const op = byOperationId(r.operationId);
      const before = await fingerprint(server.db);
      const res = await callOperation(server, op, { ...request, headers: { ...credentials(sharedWorld, op, caller), ...request.headers } });
      expect(r.expect, res.text).toContain(res.status);
      if (res.status >= 400) expect(changedTables(before, await fingerprint(server.db))).toEqual([]);
    });
  }
});

describe('the fuzzer itself', () => {
  it('names real operations in FUZZ_EXCEPTIONS and REPRODUCTIONS, and only reproductions in KNOWN_BUGS', () => {
    expect(unknownOperations(Object.keys(FUZZ_EXCEPTIONS))).toEqual([]);
    expect(unknownOperations(REPRODUCTIONS.map((r) => r.operationId))).toEqual([]);
    expect([...KNOWN_BUGS].filter((n) => !REPRODUCTIONS.some((r) => r.name === n))).toEqual([]);
  });

  it('generates values that its schemas accept, and broken ones they mostly refuse', () => {
    const noHints: IdHints = () => [];
    const problems: string[] = [];
    const check = (where: string, schema: Record<string, any>, mode: 'json' | 'param') => {
      const inlined = inline(schema);
      const isValid = schemaValidator(inlined, mode);
      const asSent = (v: unknown) => (mode === 'param' ? String(v) : v);
      const valid = fc.sample(validArb(inlined, noHints), { numRuns: 40, seed: SEED });
      const rejected = valid.filter((v) => !isValid(asSent(v)));
      if (rejected.length) problems.push(`${where}: generated values its schema refuses: ${JSON.stringify(rejected.slice(0, 3))}`);
      const bad = invalidArb(inlined, noHints, mode);
      if (!bad) return;
      const broken = fc.sample(bad, { numRuns: 40, seed: SEED }).filter((v) => !isValid(asSent(v)));
      if (broken.length < 30) problems.push(`${where}: only ${broken.length} of 40 broken values are refused by the schema`);
    };
    for (const op of operations) {
      for (const p of parametersOf(op)) check(`${op.operationId} ${p.in}.${p.name}`, p.schema, 'param');
      const body = jsonBodyOf(op);
      if (body) check(`${op.operationId} body`, body.schema, 'json');
    }
    expect(problems).toEqual([]);
  });

  it('lists every operation whose request body it cannot make (neither JSON nor a file upload) in FUZZ_EXCEPTIONS', () => {
    expect(operations.filter((o) => !generatable(o) && !FUZZ_EXCEPTIONS[o.operationId]).map(label)).toEqual([]);
  });
});
