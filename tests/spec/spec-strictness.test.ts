// The spec says what the server enforces (issue 36): a client generated from it, or a tester that
// reads it (Schemathesis), must not find input the schemas admit and the server refuses, nor
// examples that the server refuses when replayed. The server's side of each rule is tested where
// its feature is; here, that the spec states it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/events.ts';
import { TEXT_PATTERNS, type TextKind } from '../../src/http/text-patterns.ts';
import { DELETION_CONFIRMATION } from '../../src/services/account.ts';
import { deref, operations, parametersOf, spec } from '../helpers/operations.ts';
import { inline } from '../helpers/schema-arbitrary.ts';

const ajv = new Ajv2020({ strict: false });
const compile = (schema: unknown) => ajv.compile(inline(schema));
const posts = operations.filter((op) => op.method === 'post' && op.security.length > 0);
/** The operation's own Idempotency-Key parameter, as written (its example included). */
const idempotencyKeyOf = (op: (typeof operations)[number]) =>
  (op.operation.parameters as Record<string, any>[] | undefined)?.map((p) => deref(p)).find((p) => p.name === 'Idempotency-Key');

describe('Idempotency-Key', () => {
  it('admits exactly what the server takes: 1 to 255 printable ASCII characters, no space', () => {
    const valid = compile(parametersOf(posts[0]!).find((p) => p.name === 'Idempotency-Key')!.schema);
    for (const key of ['a', 'create-gig-1', '~!"#$%&()*+,./:;<=>?@[\\]^_`{|}', 'k'.repeat(255)]) expect(valid(key), key).toBe(true);
    for (const key of ['', 'a b', 'tab\there', 'naïve', 'k'.repeat(256), 'line\nbreak', '\u007f']) expect(valid(key), key).toBe(false);
  });

  it('has an example of its own on every POST, so that replaying the examples is not answered 422', () => {
    const examples = posts.map((op) => [op.operationId, idempotencyKeyOf(op)?.example] as const);
    expect(examples.filter(([, example]) => typeof example !== 'string')).toEqual([]);
    const values = examples.map(([, example]) => example);
    expect(values.filter((v, i) => values.indexOf(v) !== i)).toEqual([]);
    const valid = compile(idempotencyKeyOf(posts[0]!)?.schema);
    expect(examples.filter(([, example]) => !valid(example))).toEqual([]);
  });
});

describe('event types', () => {
  const schemas = spec.components.schemas;

  it('are one named enum, EventType, equal to the catalog (the webhooks the spec lists, and the code its types)', () => {
    expect([...schemas.EventType.enum].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...schemas.EventType.enum].sort()).toEqual(Object.keys(spec.webhooks).sort());
  });

  it('are what a webhook endpoint subscribes to and what the event feed filters by', () => {
    expect(schemas.WebhookEventTypes.items).toEqual({ $ref: '#/components/schemas/EventType' });
    const type = parametersOf(operations.find((op) => op.operationId === 'listEvents')!).find((p) => p.name === 'type')!;
    expect(type.schema.items).toEqual({ $ref: '#/components/schemas/EventType' });
  });
});

describe('list-valued query parameters', () => {
  // The server splits these at commas and checks each item: the spec says so, as an array.
  const LISTS: [operationId: string, name: string][] = [
    ['listEvents', 'type'],
    ['searchGigs', 'tags'],
    ['searchGigs', 'sources'],
  ];

  it.each(LISTS)('%s %s is an array of bounded items, sent comma-separated (style form, explode false)', (operationId, name) => {
    const op = operations.find((o) => o.operationId === operationId)!;
    const raw = [...(op.operation.parameters ?? [])].map((p) => deref<Record<string, any>>(p)).find((p) => p.name === name)!;
    expect(raw).toMatchObject({ in: 'query', style: 'form', explode: false });
    const schema = inline(raw.schema);
    expect(schema).toMatchObject({ type: 'array', maxItems: 20 });
    expect(schema.items.enum ?? schema.items.maxLength).toBeDefined();
  });

  it('are every query parameter the server reads as a list', () => {
    const arrays = operations.flatMap((op) =>
      parametersOf(op)
        .filter((p) => p.in === 'query' && inline(p.schema).type === 'array')
        .map((p) => [op.operationId, p.name]),
    );
    expect(arrays.sort()).toEqual([...LISTS].sort());
  });
});

describe('request fields that admit less than their type', () => {
  const schemas = spec.components.schemas;

  it('a webhook URL is an absolute http(s) URL', () => {
    const valid = compile(schemas.WebhookUrl);
    for (const url of ['https://agent.example.com/hooks/gigmarket', 'http://127.0.0.1:8080/x?y=1']) expect(valid(url), url).toBe(true);
    for (const url of ['not a url', 'ftp://example.com/x', '/hooks/relative', 'mailto:ops@example.com', 'https//example.com'])
      expect(valid(url), url).toBe(false);
  });

  it("the account deletion's confirmation is the one phrase the server takes", () => {
    expect(schemas.DeleteAccountRequest.properties.confirm.enum).toEqual([DELETION_CONFIRMATION]);
  });

  it('an email address follows the stricter rule the server applies, and says so', () => {
    const email = schemas.UpdateProfileRequest.properties.email;
    const valid = compile({ ...email, type: 'string' });
    for (const address of ['ops@example.com', 'a.b+c@mail.example.co.uk', "o'neil@example.ie"]) expect(valid(address), address).toBe(true);
    // The standard allows these; the server does not (a domain without a dot, a quoted or non-ASCII local part, an IP literal).
    for (const address of ['ops@localhost', '0@com', '"a b"@example.com', 'josé@example.com', 'a@[192.0.2.1]'])
      expect(valid(address), address).toBe(false);
    expect(email.description).toMatch(/at\s+least\s+one\s+dot/);
  });

  it('says where the event feed refuses `after` together with `cursor`', () => {
    const listEvents = operations.find((op) => op.operationId === 'listEvents')!;
    const written = (listEvents.operation.parameters as Record<string, any>[]).map((p) => ({ ...deref(p), ...p }));
    expect(written.find((p) => p.name === 'after')?.description).toMatch(/not with `cursor`/i);
    expect(written.find((p) => p.name === 'cursor')?.description).toMatch(/not with `after`/i);
  });

  it('says in its conventions that no string may hold NUL (U+0000)', () => {
    expect(spec.info.description).toMatch(/U\+0000/);
  });
});

describe('the characters of text (Unicode Cc, Cf, Zl, Zp)', () => {
  /** Every string a request carries (bodies and parameters), by where: `createGig body.tags[]`. */
  function requestStrings(): Map<string, Record<string, any>> {
    const found = new Map<string, Record<string, any>>();
    const walk = (schema: unknown, where: string, depth = 0) => {
      const s = inline(schema);
      if (!s || typeof s !== 'object' || depth > 12) return;
      const types = [s.type].flat();
      if (types.includes('string') && !s.enum && !['uuid', 'date', 'date-time', 'binary'].includes(s.format)) found.set(where, s);
      for (const [name, sub] of Object.entries<unknown>(s.properties ?? {})) walk(sub, `${where}.${name}`, depth + 1);
      if (s.items) walk(s.items, `${where}[]`, depth + 1);
      for (const sub of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) walk(sub, where, depth + 1);
    };
    for (const op of operations) {
      for (const p of parametersOf(op)) walk(p.schema, `${op.operationId} ${p.in}.${p.name}`);
      for (const [type, media] of Object.entries<any>(deref<Record<string, any>>(op.operation.requestBody)?.content ?? {}))
        if (type === 'application/json') walk(media.schema, `${op.operationId} body`);
    }
    return found;
  }
  const strings = requestStrings();
  const kindOf = (schema: Record<string, any>) =>
    (Object.entries(TEXT_PATTERNS) as [TextKind, { pattern: string }][]).find(([, p]) => p.pattern === schema.pattern)?.[0];

  /** Strings with a stricter rule of their own (an opaque token, a format, an ASCII pattern such as base64url), not text. */
  const NOT_TEXT =
    /(\.cursor|header\.Idempotency-Key|\.hosted_agent_id|\.terms_hash|\.(?:credential|passkey)(?:\.response)?\.(?:id|rawId|clientDataJSON|attestationObject|authenticatorData|publicKey|signature|userHandle)|\.reference_id|\.currency|\.portfolio_website_url|\.email|\.url|query\.sources\[\])$/;

  it('states a rule for the characters of every string a request carries', () => {
    const missing = [...strings].filter(([where, s]) => !NOT_TEXT.test(where) && !kindOf(s)).map(([where]) => where);
    expect(missing).toEqual([]);
    const untested = [...strings].filter(([where, s]) => NOT_TEXT.test(where) && !s.pattern && !s.format && !where.endsWith('.cursor'));
    expect(untested.map(([where]) => where)).toEqual([]);
  });

  it.each([
    ['createGig body.title', 'line'],
    ['updateGig body.title', 'line'],
    ['negotiate body.milestones[].title', 'line'],
    ['proposeRound body.milestones[].title', 'line'],
    ['updateMyProfile body.display_name', 'line'],
    ['createApiKey body.name', 'line'],
    ['searchGigs query.q', 'optionalLine'],
    ['createWebhookEndpoint body.description', 'optionalLine'],
    ['createGig body.tags[]', 'tag'],
    ['updateMyProfile body.skills[]', 'tag'],
    ['searchGigs query.tags[]', 'tagInList'],
    ['createGig body.description', 'optionalText'],
    ['negotiate body.notes', 'optionalText'],
    ['reviseContract body.notes', 'text'],
    ['createDispute body.description', 'text'],
  ] as [string, TextKind][])('%s is %s text', (where, kind) => {
    expect(strings.get(where), where).toBeDefined();
    expect(kindOf(strings.get(where)!)).toBe(kind);
  });

  it('says the rules in its conventions, and how tags are normalized', () => {
    expect(spec.info.description).toMatch(/Cc, Cf, Zl, Zp/);
    expect(spec.info.description).toMatch(/NFKC/);
  });
});
