// Every list in the spec that takes a `cursor` refuses one it did not make (400 VALIDATION_FAILED
// naming query.cursor): garbage, a real cursor with one character changed or its check cut off,
// an unsealed cursor of the right shape, and a sealed one whose time no Date can hold (that one
// answered 500 before). The lists come from openapi.yaml, so a list added later is covered too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { sealCursor } from '../../src/cursor-seal.ts';

let server: TestServer;
let apiKey: string;
let userId: string;
let gigId: string;
let endpointId: string;

beforeAll(async () => {
  // A webhook endpoint on loopback (never called: it wants only an event nothing here writes).
  server = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
  const client = await server.user('Cursor Client');
  apiKey = client.apiKey;
  userId = client.userId;
  const gig = await client.api.POST('/api/gigs', { body: { title: 'Rust parser', tags: ['rust'] } });
  gigId = gig.data!.id;
  // Two of each, so that every list has a second page and a real cursor to tamper with.
  await client.api.POST('/api/gigs', { body: { title: 'Rust CLI', tags: ['rust'] } });
  const endpoint = await client.api.POST('/api/webhooks', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['gig.deleted'] } });
  endpointId = endpoint.data!.id;
});
afterAll(() => server?.close());

const usesCursor = (op: ReturnType<typeof listOperations>[number]) =>
  JSON.stringify(op.operation.parameters ?? []).includes('#/components/parameters/Cursor');
const lists = listOperations(loadSpec()).filter(usesCursor);

/** The list's URL with its path and required query parameters filled in, plus `extra`. */
function urlOf(path: string, operationId: string, extra: Record<string, string>): string {
  const url = new URL(path.replace('{id}', path.startsWith('/api/webhooks/') ? endpointId : gigId).replace('{userId}', userId), server.url);
  if (operationId === 'recommendWorkers') url.searchParams.set('gig_id', gigId);
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return url.toString();
}

const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });

describe('cursors', () => {
  it('the spec has lists that take a cursor', () => {
    expect(lists.map((l) => l.operationId)).toEqual(expect.arrayContaining(['listGigs', 'searchGigs', 'listApiKeys']));
  });

  for (const op of lists) {
    it(`${op.operationId} refuses a cursor it did not make`, async () => {
      // A real cursor, from a first page of one item (where the list has any).
      const first = await get(urlOf(op.path, op.operationId, { limit: '1' }));
      expect(first.status).toBe(200);
      const real = ((await first.json()) as { next_cursor: string | null }).next_cursor;
      const bad = [
        'garbage',
        Buffer.from(JSON.stringify({ before: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' })).toString('base64url'),
        sealCursor({ f: 'x', t: 1e300, s: 0.5, i: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' }),
        sealCursor({ before: 'not-a-uuid' }),
      ];
      if (real) {
        const i = Math.floor(real.length / 3);
        bad.push(real.slice(0, i) + (real[i] === 'A' ? 'B' : 'A') + real.slice(i + 1), real.slice(0, real.lastIndexOf('.')));
      }
      for (const cursor of bad) {
        const res = await get(urlOf(op.path, op.operationId, { cursor }));
        const body = (await res.json()) as { error?: { code: string; issues: { path: string }[] } };
        expect({ cursor, status: res.status, code: body.error?.code }).toEqual({ cursor, status: 400, code: 'VALIDATION_FAILED' });
        expect(body.error!.issues.map((i) => i.path)).toContain('query.cursor');
      }
      if (real) expect((await get(urlOf(op.path, op.operationId, { cursor: real, limit: '1' }))).status).toBe(200);
    });
  }
});
