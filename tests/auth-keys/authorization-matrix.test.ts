// The authorization matrix, generated from openapi.yaml: every operation, with every kind of bad
// credential its `security` allows, on another user's resources, in the wrong role, and with an API
// key where a browser session is required. An operation added to the spec is covered here without
// a line of test code (or the meta tests below say what to add). Each request must get the refusal
// the spec declares, with the error envelope and its precise code, and change nothing in the
// database (a fingerprint of every table before and after; the one after a case is the next one's
// before: tests/helpers/operations.ts).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SESSION_COOKIE, signInDev } from '../helpers/session.ts';
import {
  bearer,
  callOperation,
  isUnsafe,
  label,
  operationIds,
  operations,
  schemesOf,
  unknownOperations,
  UNKNOWN_KEY,
  UnchangedChecks,
  xApiKey,
  type OperationRequest,
} from '../helpers/operations.ts';
import {
  buildWorld,
  credentialsOf,
  pathParameters,
  requestFor,
  requiredIdQuery,
  worldPathIds,
  FIXED_PARAMETER,
  type Variants,
  type World,
} from '../helpers/world.ts';
import type { SpecOperation } from '../../src/spec.ts';

/**
 * Operations no generated case can cover, with why. A meta test checks that each names an
 * operation of the spec and that it is indeed covered by no case (so the list cannot rot).
 */
const EXCEPTIONS: Record<string, string> = {
  // Public (`security: []`): there are no credentials to get wrong, it takes no id, and it shows
  // nothing of anyone's.
  getHealth: 'public, no input, nothing private',
  getLiveness: "public (an orchestrator's probe), no input, nothing private",
  getReadiness: "public (an orchestrator's probe), no input, nothing private",
  getReceiptKeys: 'public (the receipts keys anyone verifies with), no input, nothing private',
};

/**
 * Cases that fail today because of a bug in the server or the spec, skipped until it is fixed
 * (then delete the entry: the case runs again). Keys are case names as the tests show them.
 *
 * Cross-site cookie requests: authenticate.ts refuses every unsafe cookie-authenticated request
 * from another site with 403 FORBIDDEN, as the spec's introduction says, but these operations do
 * not declare a 403 response, so the answer breaks their contract.
 */
const CROSS_SITE_403_NOT_DECLARED: string[] = [];
const CROSS_SITE = {
  secFetch: 'cookie, cross-site (Sec-Fetch-Site: cross-site)',
  // A sibling subdomain is same-site but not same-origin: refused too.
  sameSite: 'cookie, another origin of the same site (Sec-Fetch-Site: same-site)',
  origin: 'cookie, cross-origin (Origin: http://evil.example)',
};
const KNOWN_BUGS: Record<string, string> = Object.fromEntries(
  Object.values(CROSS_SITE).flatMap((kind) =>
    CROSS_SITE_403_NOT_DECLARED.map((op) => [`${kind} -> ${op}`, '403 FORBIDDEN is not declared for this operation in openapi.yaml']),
  ),
);

/**
 * A stranger (a valid user, party to nothing) addressing the world's resources gets 404, as if
 * they did not exist, except where the spec says otherwise. The world's gig here is the client's
 * draft (invisible to others); visible gigs are the next table.
 */
const STRANGER_EXCEPTIONS: Record<string, { status: number; reason: string }> = {
  // "What anyone signed in can see about a user" (the spec): public profiles are readable by all.
  getProfile: { status: 200, reason: 'public profiles are readable by anyone signed in' },
  listProfileReviews: { status: 200, reason: "a user's published reviews are public, like their profile" },
};

/**
 * The same stranger on a gig they can see (open) but do not own. The spec says: `403` for
 * another user on a gig they can see (`404` only on a draft). Every operation addressing a gig
 * (path `gigs/{id}`, or a required `gig_id` query parameter) must have an entry here; `skip`
 * leaves it out, saying why.
 */
const VISIBLE_GIG: Record<string, { status: number; code?: string } | { skip: string }> = {
  getGig: { status: 200 }, // every non-draft gig is visible to every signed-in user
  updateGig: { status: 403, code: 'FORBIDDEN' },
  deleteGig: { status: 403, code: 'FORBIDDEN' },
  listGigApplications: { status: 403, code: 'FORBIDDEN' },
  shortlistWorker: { status: 403, code: 'FORBIDDEN' },
  recommendWorkers: { status: 403, code: 'FORBIDDEN' },
  // Any user may apply to an open gig: for the stranger that succeeds and creates an application,
  // which is not a refusal to test here (applications.test.ts covers it).
  applyToGig: { skip: 'a stranger may apply to an open gig' },
};

/**
 * Wrong role: a party of the resource calls what only the other party may do. Roles are not in the
 * spec (its prose says "the client only (403 for the worker)"), so this is a small explicit table;
 * every entry expects 403 FORBIDDEN and no change.
 */
type Party = 'client' | 'worker' | 'worker2';
const WRONG_ROLE: { operationId: string; caller: Party; ids?: Variants; body?: (w: World) => unknown; why: string }[] = [
  {
    operationId: 'fundMilestone',
    caller: 'worker',
    ids: { contract: 'active', milestone: 'first' },
    why: 'only the client funds a milestone',
  },
  {
    operationId: 'releaseMilestone',
    caller: 'worker',
    ids: { contract: 'active', milestone: 'first' },
    why: 'only the client releases a milestone',
  },
  { operationId: 'getConnectLink', caller: 'client', ids: { contract: 'active' }, why: "the onboarding link is the worker's alone" },
  {
    operationId: 'shortlistWorker',
    caller: 'worker',
    ids: { gig: 'open' },
    body: (w) => ({ worker_user_id: w.worker2.userId }),
    why: "only the gig's client shortlists",
  },
  {
    operationId: 'shortlistApplication',
    caller: 'worker2',
    ids: { application: 'submitted' },
    why: 'the worker cannot shortlist their own application',
  },
  { operationId: 'rejectApplication', caller: 'worker', ids: { application: 'shortlisted' }, why: "only the gig's client rejects" },
  { operationId: 'withdrawApplication', caller: 'client', ids: { application: 'shortlisted' }, why: 'only the worker withdraws' },
  {
    operationId: 'createNegotiation',
    caller: 'worker',
    body: (w) => ({ gig_id: w.ids.gig.open, worker_user_id: w.worker2.userId }),
    why: "only the gig's client starts a negotiation",
  },
  {
    operationId: 'negotiate',
    caller: 'worker',
    body: (w) => ({ gig_id: w.ids.gig.open, worker_user_id: w.worker2.userId, milestones: [{ title: 'All', amount_cents: 100 }] }),
    why: "only the gig's client starts a negotiation",
  },
  {
    operationId: 'updateGig',
    caller: 'worker',
    ids: { gig: 'open' },
    body: () => ({ title: 'Taken over' }),
    why: 'only the client edits their gig',
  },
  { operationId: 'deleteGig', caller: 'worker', ids: { gig: 'open' }, why: 'only the client deletes their gig' },
  { operationId: 'listGigApplications', caller: 'worker', ids: { gig: 'open' }, why: "only the client lists a gig's applications" },
  { operationId: 'recommendWorkers', caller: 'worker', ids: { gig: 'open' }, why: "only the gig's client gets workers recommended" },
  { operationId: 'respondToDispute', caller: 'client', ids: { dispute: 'open' }, why: 'the opener cannot respond to their own dispute' },
  { operationId: 'withdrawDispute', caller: 'worker', ids: { dispute: 'open' }, why: 'only the opener withdraws a dispute' },
  {
    operationId: 'applyToGig',
    caller: 'client',
    ids: { gig: 'open' },
    body: () => ({ message: 'me, myself' }),
    why: 'a client cannot apply to their own gig',
  },
];

// --- generating the cases -----------------------------------------------------------------

interface Case {
  name: string;
  op: SpecOperation;
  expected: { status: number; code?: string };
  request(w: World, extra: Extra): OperationRequest;
}
/** Credentials made in beforeAll besides the world's. */
interface Extra {
  signedOutCookie: string;
}

const authenticated = operations.filter((op) => op.security.length > 0);
/**
 * Operations whose security lists `{}` take callers without credentials (the resume download):
 * they answer them as they answer a stranger, 404 (a meta test checks they address a resource).
 */
const takesAnonymous = (op: SpecOperation) => op.security.some((s) => Object.keys(s).length === 0);

/** Does the operation address a world resource: path parameters, or a required id in its query? */
const addressesResource = (op: SpecOperation) =>
  pathParameters(op.path).some((p) => !FIXED_PARAMETER[p.key]) || requiredIdQuery(op).length > 0;
const addressesGig = (op: SpecOperation) =>
  pathParameters(op.path).some((p) => p.key === 'gigs/{id}') || requiredIdQuery(op).some((p) => p.name === 'gig_id');

/** The client's session cookie with one character of the signed token, or of the signature, changed. */
function tampered(cookie: string, part: 'token' | 'signature'): string {
  const value = cookie.slice(SESSION_COOKIE.length + 1);
  const at = part === 'token' ? 0 : value.length - 1;
  const swapped = value[at] === 'A' ? 'B' : 'A';
  return `${SESSION_COOKIE}=${value.slice(0, at)}${swapped}${value.slice(at + 1)}`;
}

const UNAUTHENTICATED = { status: 401, code: 'UNAUTHENTICATED' };
const FORBIDDEN = { status: 403, code: 'FORBIDDEN' };
const NOT_FOUND = { status: 404, code: 'NOT_FOUND' };

const cases: Case[] = [];
const add = (kind: string, op: SpecOperation, expected: Case['expected'], request: Case['request']) =>
  cases.push({ name: `${kind} -> ${op.operationId}`, op, expected, request });

// 1. Bad credentials of every kind the operation's security allows.
for (const op of authenticated) {
  const schemes = schemesOf(op);
  const transports: [string, (k: string) => Record<string, string>][] = [];
  if (schemes.has('bearerApiKey')) transports.push(['Authorization: Bearer', bearer]);
  if (schemes.has('headerApiKey')) transports.push(['x-api-key', xApiKey]);
  add('no credentials', op, takesAnonymous(op) ? NOT_FOUND : UNAUTHENTICATED, (w) => requestFor(w, op, {}));
  if (schemes.has('bearerApiKey')) {
    add('Authorization header that is not "Bearer <key>"', op, UNAUTHENTICATED, (w) =>
      requestFor(w, op, { authorization: `Basic ${Buffer.from('client:secret').toString('base64')}` }),
    );
  }
  for (const [transport, header] of transports) {
    add(`malformed key (${transport})`, op, UNAUTHENTICATED, (w) => requestFor(w, op, header('gm_live_not-a-key!')));
    add(`unknown well-formed key (${transport})`, op, UNAUTHENTICATED, (w) => requestFor(w, op, header(UNKNOWN_KEY)));
    add(`revoked key (${transport})`, op, UNAUTHENTICATED, (w) => requestFor(w, op, header(w.keys.revoked)));
    add(`old key of a rotated key (${transport})`, op, UNAUTHENTICATED, (w) => requestFor(w, op, header(w.keys.rotatedOld)));
  }
  // Two different keys: neither header wins, whichever of them is valid.
  if (schemes.has('bearerApiKey') && schemes.has('headerApiKey')) {
    add('valid x-api-key beside a revoked Bearer key', op, UNAUTHENTICATED, (w) =>
      requestFor(w, op, { ...xApiKey(w.client.apiKey), ...bearer(w.keys.revoked) }),
    );
    add('valid Bearer key beside an empty x-api-key', op, UNAUTHENTICATED, (w) =>
      requestFor(w, op, { ...xApiKey(''), ...bearer(w.client.apiKey) }),
    );
  }
  if (schemes.has('sessionCookie')) {
    add('session cookie with a tampered token', op, UNAUTHENTICATED, (w) =>
      requestFor(w, op, { cookie: tampered(w.client.session.cookie, 'token') }),
    );
    add('session cookie with a tampered signature', op, UNAUTHENTICATED, (w) =>
      requestFor(w, op, { cookie: tampered(w.client.session.cookie, 'signature') }),
    );
    add('signed-out session cookie', op, UNAUTHENTICATED, (w, x) => requestFor(w, op, { cookie: x.signedOutCookie }));
    // Only unsafe methods are checked for their origin (a cross-site GET changes nothing, and
    // SameSite=Lax already keeps the cookie off cross-site subrequests).
    if (isUnsafe(op)) {
      add(CROSS_SITE.secFetch, op, FORBIDDEN, (w) =>
        requestFor(w, op, { cookie: w.client.session.cookie, 'sec-fetch-site': 'cross-site' }),
      );
      add(CROSS_SITE.sameSite, op, FORBIDDEN, (w) => requestFor(w, op, { cookie: w.client.session.cookie, 'sec-fetch-site': 'same-site' }));
      add(CROSS_SITE.origin, op, FORBIDDEN, (w) => requestFor(w, op, { cookie: w.client.session.cookie, origin: 'http://evil.example' }));
    }
  }
}

// 2. The wrong kind of valid credential: a key where only a browser session is accepted (key
// management), and a session where only a key is (verifying a key).
for (const op of authenticated) {
  const schemes = schemesOf(op);
  const keys = schemes.has('bearerApiKey') || schemes.has('headerApiKey');
  // The client's own spare key is the target: only the kind of credential stands in the way.
  if (!keys) {
    add('valid API key where a browser session is required (Authorization: Bearer)', op, FORBIDDEN, (w) =>
      requestFor(w, op, bearer(w.client.apiKey)),
    );
    add('valid API key where a browser session is required (x-api-key)', op, FORBIDDEN, (w) => requestFor(w, op, xApiKey(w.client.apiKey)));
  }
  if (!schemes.has('sessionCookie')) {
    add('valid browser session where an API key is required', op, FORBIDDEN, (w) => requestFor(w, op, { cookie: w.client.session.cookie }));
  }
}

// 3. Another user's resources: the stranger, with valid credentials, on every id of the world.
for (const op of authenticated.filter(addressesResource)) {
  const exception = STRANGER_EXCEPTIONS[op.operationId];
  add("stranger on another user's resources (the gig: a draft)", op, exception ? { status: exception.status } : NOT_FOUND, (w) =>
    requestFor(w, op, credentialsOf(w.stranger, op), { gig: 'draft' }),
  );
}
// ... and on a gig they can see but do not own.
for (const op of authenticated.filter(addressesGig)) {
  const entry = VISIBLE_GIG[op.operationId];
  if (!entry || 'skip' in entry) continue; // a missing entry fails the meta test below
  add("stranger on an open gig of someone else's", op, entry, (w) => requestFor(w, op, credentialsOf(w.stranger, op), { gig: 'open' }));
}

// 4. Wrong role.
const byId = new Map(operations.map((o) => [o.operationId, o]));
for (const entry of WRONG_ROLE) {
  const op = byId.get(entry.operationId);
  if (!op) continue; // the meta test names it
  add(`wrong role: ${entry.caller} (${entry.why})`, op, FORBIDDEN, (w) =>
    requestFor(w, op, bearer(w[entry.caller].apiKey), entry.ids, entry.body?.(w)),
  );
}

// --- running them -------------------------------------------------------------------------

let server: TestServer;
let world: World;
let extra: Extra;
beforeAll(async () => {
  // Hundreds of refused credentials from one address, on purpose: limits high enough not to interfere.
  server = await startTestServer({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' });
  world = await buildWorld(server);
  // A session of the client's that was signed out: its cookie is still correctly signed.
  const gone = await signInDev(server, { userId: world.client.userId });
  const out = await fetch(`${server.url}/auth/logout`, {
    method: 'POST',
    headers: { cookie: gone.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });
  expect(out.status).toBe(303);
  extra = { signedOutCookie: gone.cookie };
});
afterAll(async () => {
  await server?.close();
});

describe('the generated cases', () => {
  let unchanged: UnchangedChecks;
  beforeAll(() => {
    unchanged = new UnchangedChecks(server.db);
  });
  for (const c of cases) {
    const known = KNOWN_BUGS[c.name];
    (known ? it.skip : it)(c.name, async () => {
      const request = c.request(world, extra);
      const before = await unchanged.before();
      // callOperation checks the status is declared for the operation and the body matches it.
      const res = await callOperation(server, c.op, request);
      expect(res.status, `${label(c.op)}: ${res.text}`).toBe(c.expected.status);
      if (c.expected.status >= 400) {
        expect(res.body.error).toEqual({ code: c.expected.code, message: expect.any(String), issues: [] });
      }
      expect(await unchanged.changedSince(before), 'tables changed by a refused request').toEqual([]);
    });
  }
});

describe('the matrix itself', () => {
  const covered = new Set(cases.map((c) => c.op.operationId));

  it('covers every operation of the spec, or lists it in EXCEPTIONS', () => {
    expect(operations.map((o) => o.operationId).filter((id) => !covered.has(id) && !EXCEPTIONS[id])).toEqual([]);
    expect(cases.length).toBeGreaterThan(operations.length * 5);
  });

  it('lists in EXCEPTIONS only operations that exist and that no case covers', () => {
    expect(unknownOperations(Object.keys(EXCEPTIONS))).toEqual([]);
    expect(Object.keys(EXCEPTIONS).filter((id) => covered.has(id))).toEqual([]);
  });

  it('names real operations in its tables', () => {
    expect(
      unknownOperations([
        ...Object.keys(STRANGER_EXCEPTIONS),
        ...Object.keys(VISIBLE_GIG),
        ...WRONG_ROLE.map((e) => e.operationId),
        ...CROSS_SITE_403_NOT_DECLARED,
      ]),
    ).toEqual([]);
  });

  it('has an entry in VISIBLE_GIG for every operation that addresses a gig', () => {
    expect(
      authenticated
        .filter(addressesGig)
        .map((o) => o.operationId)
        .filter((id) => !VISIBLE_GIG[id]),
    ).toEqual([]);
  });

  it('takes callers without credentials only where it addresses a resource they then cannot see', () => {
    expect(
      authenticated
        .filter(takesAnonymous)
        .filter((op) => !addressesResource(op) || STRANGER_EXCEPTIONS[op.operationId])
        .map(label),
    ).toEqual([]);
  });

  it('lists in KNOWN_BUGS only cases that exist', () => {
    const names = new Set(cases.map((c) => c.name));
    expect(Object.keys(KNOWN_BUGS).filter((n) => !names.has(n))).toEqual([]);
  });

  it('skips only the operations that do not declare the status they get (KNOWN_BUGS)', () => {
    // A known bug whose operation now declares 403 is fixed: its entry must go.
    for (const id of CROSS_SITE_403_NOT_DECLARED) expect(Object.keys(byId.get(id)!.operation.responses), id).not.toContain('403');
  });

  it('builds a world whose ids all exist (a 404 above is about who asks, not about what)', async () => {
    const tables: Record<keyof World['ids'], string> = {
      apiKey: 'api_keys',
      user: 'users',
      gig: 'gigs',
      application: 'applications',
      negotiation: 'negotiations',
      contract: 'contracts',
      milestone: 'milestones',
      notification: 'notification_messages',
      webhook: 'webhook_endpoints',
      webhookDelivery: 'webhook_deliveries',
      dispute: 'disputes',
      evidence: 'dispute_evidence',
      passkey: 'passkeys',
    };
    for (const [kind, ids] of Object.entries(world.ids) as [keyof World['ids'], Record<string, string>][]) {
      for (const [variant, id] of Object.entries(ids)) {
        const found: unknown = await server.db.execute(sql.raw(`select 1 from ${tables[kind]} where id = '${id}'`));
        expect((Array.isArray(found) ? found : (found as { rows: unknown[] }).rows).length, `${kind} ${variant}`).toBe(1);
      }
    }
  });

  it('resolves every path parameter of the spec to a world id', () => {
    // worldPathIds throws naming the parameter to add to RESOURCE_OF_PARAMETER.
    for (const op of operations) expect(() => worldPathIds(world, op.path), label(op)).not.toThrow();
    expect(operationIds.size).toBe(operations.length);
  });
});
