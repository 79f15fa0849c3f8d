// Every status an operation can answer is declared for it in openapi.yaml (issue #13: a spec SDK
// generators read cleanly). Each operation gets the requests any client can send, whatever the
// operation: no or unknown credentials, the wrong kind, a cookie from another origin; no body, an
// empty one, `{}`, malformed JSON, other media types, one over the body limit, multipart; unknown
// and malformed ids, an invalid query parameter; an Idempotency-Key reused with another body; the
// rate limit spent; no credits where the operation charges them. Every answer goes through the
// spec check (callOperation): the status must be declared for the operation and the body match
// it. Each probe must also get the answer it is about from some operation, or it tests nothing.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { stringify as stableStringify } from 'safe-stable-stringify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SpecOperation } from '../../src/spec.ts';
import { testFileServer, startTestServer } from '../helpers/server.ts';
import { signInDev } from '../helpers/session.ts';
import {
  bearer,
  callOperation,
  isUnsafe,
  jsonBodyOf,
  label,
  operations,
  parametersOf,
  schemesOf,
  UNKNOWN_KEY,
  type OperationRequest,
} from '../helpers/operations.ts';
import { inline, invalidArb, schemaValidator, validArb } from '../helpers/schema-arbitrary.ts';
import { buildWorld, credentialsOf, formFor, pathParameters, requestFor, type World, type WorldUser } from '../helpers/world.ts';

const server = testFileServer({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' });
let world: World;
beforeAll(async () => {
  world = await buildWorld(server);
});

const takesKeys = (op: SpecOperation) => schemesOf(op).has('bearerApiKey') || schemesOf(op).has('headerApiKey');
const hasParameters = (op: SpecOperation, where: 'path' | 'query') => parametersOf(op).some((p) => p.in === where);
/** fetch sends no body with a GET (and Fastify would not read one). */
const sendsBody = (op: SpecOperation) => op.method !== 'get';

/** The world's stranger (party to nothing) on the world's resources, with the spec's example body. */
const asStranger = (op: SpecOperation, headers: Record<string, string> = {}): OperationRequest =>
  requestFor(world, op, { ...credentialsOf(world.stranger, op), ...headers });
/** The stranger's request with these bytes as its body, of this content type (none: no header). */
const withBody = (op: SpecOperation, bytes: string | Uint8Array<ArrayBuffer>, contentType?: string): OperationRequest => ({
  ...asStranger(op, contentType ? { 'content-type': contentType } : {}),
  body: undefined,
  form: undefined,
  rawBody: bytes,
});
/** The operation's path with `value` in every parameter. */
const everyPathParameter = (op: SpecOperation, value: () => string) =>
  Object.fromEntries(pathParameters(op.path).map((p) => [p.name, value()]));

/** A value each query parameter's schema refuses (as the fuzzer makes them), if it refuses any. */
function invalidQuery(op: SpecOperation): Record<string, string>[] {
  return parametersOf(op)
    .filter((p) => p.in === 'query')
    .flatMap((p) => {
      const schema = inline(p.schema);
      const isValid = schemaValidator(schema, 'param');
      const bad = invalidArb(schema, () => [], 'param', p.name);
      const value = bad && fc.sample(bad.map(String), { numRuns: 30, seed: 13 }).find((v) => !isValid(v));
      return value === undefined ? [] : [{ [p.name]: value }];
    });
}

/** A user of their own (with a session), so that a probe that succeeds changes nobody else's state. */
async function freshUser(name: string): Promise<WorldUser> {
  const user = await server.user(name);
  return { ...user, session: await signInDev(server, { userId: user.userId }) };
}

/** The same Idempotency-Key twice, the second time with another body: the first answer is recorded (unless it is a 400), so 422. */
async function reusedKey(op: SpecOperation): Promise<number[]> {
  const user = await freshUser(`Idempotent ${op.operationId}`);
  const first = requestFor(world, op, { ...credentialsOf(user, op), 'idempotency-key': `probe-${op.operationId}` });
  const json = jsonBodyOf(op);
  const second: OperationRequest = { ...first };
  if (first.form) second.form = formFor(op, 'another file');
  else if (!json) second.body = { another: 'body' };
  else {
    const other = fc
      .sample(
        validArb(inline(json.schema), () => []),
        { numRuns: 20, seed: 13 },
      )
      .find((b) => stableStringify(b) !== stableStringify(first.body));
    if (other === undefined) return []; // the schema admits one body only (deleteAccount's confirmation)
    second.body = other;
  }
  return [(await callOperation(server, op, first)).status, (await callOperation(server, op, second)).status];
}

interface Probe {
  name: string;
  /** The status this probe is about: some operation must answer it. */
  meant: number;
  applies?: (op: SpecOperation) => boolean;
  requests(op: SpecOperation): OperationRequest[];
}

const OVER_LIMIT = () => JSON.stringify('x'.repeat(server.config.bodyLimitBytes));
const PROBES: Probe[] = [
  { name: 'no credentials', meant: 401, requests: (op) => [{ ...asStranger(op), headers: {} }] },
  { name: 'an unknown API key', meant: 401, requests: (op) => [{ ...asStranger(op), headers: bearer(UNKNOWN_KEY) }] },
  {
    name: 'a valid credential of a kind the operation does not take',
    meant: 403,
    applies: (op) => op.security.length > 0 && (!takesKeys(op) || !schemesOf(op).has('sessionCookie')),
    requests: (op) => [
      { ...asStranger(op), headers: takesKeys(op) ? { cookie: world.stranger.session.cookie } : bearer(world.stranger.apiKey) },
    ],
  },
  {
    name: 'a cookie-authenticated change from another origin',
    meant: 403,
    applies: (op) => schemesOf(op).has('sessionCookie') && isUnsafe(op),
    requests: (op) => [{ ...asStranger(op), headers: { cookie: world.stranger.session.cookie, origin: 'http://evil.example' } }],
  },
  { name: 'no body', meant: 400, requests: (op) => [{ ...asStranger(op), body: undefined, form: undefined }] },
  {
    name: 'an empty body of type application/json',
    meant: 400,
    applies: sendsBody,
    requests: (op) => [withBody(op, '', 'application/json')],
  },
  { name: 'the body {}', meant: 400, applies: sendsBody, requests: (op) => [withBody(op, '{}', 'application/json')] },
  { name: 'malformed JSON', meant: 400, applies: sendsBody, requests: (op) => [withBody(op, '{"half', 'application/json')] },
  { name: 'a text/plain body', meant: 415, applies: sendsBody, requests: (op) => [withBody(op, 'hello', 'text/plain')] },
  {
    name: 'a form-urlencoded body (curl -d)',
    meant: 415,
    applies: sendsBody,
    requests: (op) => [withBody(op, 'a=1', 'application/x-www-form-urlencoded')],
  },
  {
    name: 'a body without a content type',
    meant: 415,
    applies: sendsBody,
    requests: (op) => [withBody(op, new TextEncoder().encode('{}'))],
  },
  {
    name: 'a body over the body limit',
    meant: 413,
    applies: sendsBody,
    requests: (op) => [withBody(op, OVER_LIMIT(), 'application/json')],
  },
  {
    name: 'multipart where JSON (or nothing) is expected, JSON where multipart is',
    meant: 415,
    applies: sendsBody,
    requests: (op) => {
      const form = new FormData();
      form.append('title', 'a text field');
      const json = { ...asStranger(op), form: undefined, body: { title: 'json' } };
      return formFor(op) ? [json] : [{ ...asStranger(op), body: undefined, form }];
    },
  },
  {
    name: 'well-formed ids of nothing',
    meant: 404,
    applies: (op) => hasParameters(op, 'path'),
    requests: (op) => [{ ...asStranger(op), path: everyPathParameter(op, randomUUID) }],
  },
  {
    name: 'malformed ids',
    meant: 400,
    applies: (op) => hasParameters(op, 'path'),
    requests: (op) => [{ ...asStranger(op), path: everyPathParameter(op, () => 'not-an-id') }],
  },
  {
    name: 'an invalid query parameter',
    meant: 400,
    applies: (op) => hasParameters(op, 'query'),
    requests: (op) => invalidQuery(op).map((bad) => ({ ...asStranger(op), query: { ...asStranger(op).query, ...bad } })),
  },
];

/** Sends `send` to each operation: every answer declared, and the probe's own status among them. */
async function probe(name: string, ops: SpecOperation[], send: (op: SpecOperation) => Promise<number[]>, meant: number) {
  const failures: string[] = [];
  const statuses = new Set<number>();
  for (const op of ops) {
    try {
      for (const status of await send(op)) statuses.add(status);
    } catch (error) {
      failures.push(`${label(op)}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  expect(failures, `${name}: statuses not declared (or bodies not matching)`).toEqual([]);
  expect([...statuses], `${name}: no operation answered ${meant}`).toContain(meant);
}

describe('every status answered is declared', () => {
  for (const p of PROBES) {
    it(p.name, async () => {
      const send = async (op: SpecOperation) => {
        const out: number[] = [];
        for (const request of p.requests(op)) out.push((await callOperation(server, op, request)).status);
        return out;
      };
      await probe(p.name, operations.filter(p.applies ?? (() => true)), send, p.meant);
    });
  }

  // The spec's query parameter lists are closed, as a body's fields are: `?limt=5` is a typo the
  // caller must hear of, not a default page.
  it('an unknown query parameter, refused by every operation naming it', async () => {
    const refused = async (op: SpecOperation) => {
      const request = asStranger(op);
      const res = await callOperation(server, op, { ...request, query: { ...request.query, limt: '5' } });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.issues).toContainEqual({ path: 'query.limt', message: 'is not a known field' });
      return [res.status];
    };
    await probe('unknown query parameter', operations, refused, 400);
  });

  it('an Idempotency-Key reused with a different body', async () => {
    const takesKey = (op: SpecOperation) => parametersOf(op).some((p) => p.name.toLowerCase() === 'idempotency-key');
    await probe('idempotency', operations.filter(takesKey), reusedKey, 422);
  });

  it('the rate limit spent', async () => {
    // One unit per window for each credential, two per address: a window longer than the test.
    const tiny = await startTestServer({
      RATE_LIMIT_PER_MINUTE: '1',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2',
      RATE_LIMIT_WINDOW: '1h',
      TRUST_PROXY: '127.0.0.1',
    });
    try {
      const user = await tiny.user('Spent');
      // The sign-in spends a unit of 127.0.0.1's budget and checks the session (its one unit).
      const caller: WorldUser = { ...user, session: await signInDev(tiny, { userId: user.userId }) };
      const elsewhere = { 'x-forwarded-for': '198.51.100.7' };
      expect((await fetch(`${tiny.url}/api/profile/me`, { headers: { ...bearer(user.apiKey), ...elsewhere } })).status).toBe(200);
      expect((await fetch(`${tiny.url}/api/profile/me`)).status).toBe(401); // 127.0.0.1's second unit
      await probe(
        'rate limit',
        operations,
        async (op) => {
          const request = { path: everyPathParameter(op, randomUUID) };
          const anonymous = await callOperation(tiny, op, request);
          const known = await callOperation(tiny, op, { ...request, headers: { ...credentialsOf(caller, op), ...elsewhere } });
          // Every operation is limited, but the health check (x-rate-limit-cost: 0).
          if (op.operation['x-rate-limit-cost'] !== 0) expect([anonymous.status, known.status]).toEqual([429, 429]);
          return [anonymous.status, known.status];
        },
        429,
      );
    } finally {
      await tiny.close();
    }
  });

  it('no credits where the operation charges them', async () => {
    for (const user of [world.client, world.worker]) {
      const balance = (await user.api.GET('/api/credits')).data!.credits_balance;
      if (balance > 0)
        expect((await user.api.POST('/api/credits', { body: { amount: balance, reason: 'match_deduction' } })).response.status).toBe(200);
    }
    const charging = operations.filter((op) => CHARGES[op.operationId]);
    await probe(
      'credits',
      charging,
      async (op) => {
        const { caller, request } = CHARGES[op.operationId]!(world);
        const res = await callOperation(server, op, { ...request, headers: credentialsOf(caller, op) });
        expect(res.status, res.text).toBe(402);
        return [res.status];
      },
      402,
    );
  });
});

/** The operations that charge credits (src/services/credits.ts), and a request of each that would, from a caller with none. */
const CHARGES: Record<string, (w: World) => { caller: WorldUser; request: OperationRequest }> = {
  deductCredits: (w) => ({ caller: w.client, request: { body: { amount: 1, reason: 'match_deduction' } } }),
  shortlistApplication: (w) => ({ caller: w.client, request: { path: { id: w.ids.application.submitted } } }),
  shortlistWorker: (w) => ({ caller: w.client, request: { path: { id: w.ids.gig.open }, body: { worker_user_id: w.worker2.userId } } }),
  shareContact: (w) => ({ caller: w.worker, request: { path: { id: w.ids.negotiation.open } } }),
};

describe('the probes themselves', () => {
  it('charge credits exactly where the spec declares 402, and each says what it costs', () => {
    const declaring = operations.filter((op) => op.operation.responses['402']).map((op) => op.operationId);
    expect(declaring.sort()).toEqual(Object.keys(CHARGES).sort());
    for (const id of declaring)
      expect(operations.find((op) => op.operationId === id)!.operation.description, id).toMatch(
        /costs (the \w+ )?\d+ credits?|deducts `amount` credits/i,
      );
  });
});
