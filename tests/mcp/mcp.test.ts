// The MCP server, with the SDK's own Client over both transports: Streamable HTTP against the test
// server's /mcp, and stdio by spawning `node src/mcp/stdio.ts` pointed at the test server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { loadConfig } from '../../src/config.ts';
import { MCP_OPERATIONS } from '../../src/mcp/operations.ts';
import { singleTyped } from '../../src/mcp/schema.ts';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { signInDev } from '../helpers/session.ts';
import { type Answer, connectMcp, structured, type Transport } from '../helpers/mcp.ts';

const spec = loadSpec();
const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));

let server: TestServer;
let client: User;
let worker: User;
const open: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ MCP_ALLOWED_ORIGINS: 'https://agent.example.com' });
  [client, worker] = await server.users('Client Co', 'Worker Bee');
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await server?.close();
});

/** A connected SDK client as the holder of `apiKey`, closed after the file. */
async function connect(transport: Transport, apiKey: string, answer?: Answer): Promise<Client> {
  const mcp = await connectMcp(server.url, transport, apiKey, answer);
  open.push(mcp);
  return mcp;
}

describe('/mcp: credentials and sessions', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });

  it('is 401 with the API envelope, and 401 for an unknown key', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe('UNAUTHENTICATED');
    const unknown = await post({ authorization: `Bearer gm_live_${'x'.repeat(40)}` });
    expect(unknown.status).toBe(401);
  });

  it('refuses a page of another origin before anything else (DNS-rebinding protection); its own and the allowed ones pass', async () => {
    const evil = await post({ authorization: `Bearer ${client.apiKey}`, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect((await evil.json()).error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('a page at http://evil.example'),
    });
    // Refused before authentication: even without a key the answer is 403, not 401.
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    for (const origin of [new URL(server.url).origin, 'https://agent.example.com']) {
      const allowed = await post({ authorization: `Bearer ${client.apiKey}`, origin });
      expect(allowed.status, origin).toBe(200);
      await allowed.body?.cancel();
    }
  });

  it('writes a type array as an anyOf of single types, constraints inside, description outside', () => {
    expect(singleTyped({ type: ['string', 'null'], maxLength: 5, description: 'd', enum: ['a', null] })).toEqual({
      description: 'd',
      anyOf: [{ type: 'string', maxLength: 5, enum: ['a'] }, { type: 'null' }],
    });
    expect(singleTyped({ type: 'object', properties: { n: { type: ['integer'] } } })).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
    });
  });

  it('reads MCP_ALLOWED_ORIGINS as origins, refusing anything else', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: ' https://a.example , http://localhost:5173/' }).mcpAllowedOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example/path' })).toThrow(
      /MCP_ALLOWED_ORIGINS: "https:\/\/a.example\/path" is not an origin/,
    );
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'not a url' })).toThrow(/MCP_ALLOWED_ORIGINS must be a comma-separated list of origins/);
  });

  it('refuses a browser session: an agent comes with its key', async () => {
    const session = await signInDev(server, { userId: client.userId });
    const res = await post({ cookie: session.cookie, 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('FORBIDDEN');
  });

  it('takes the key as x-api-key too, and a session belongs to the key that opened it', async () => {
    const opened = await post({ 'x-api-key': client.apiKey });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await opened.body?.cancel();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const asOther = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        authorization: `Bearer ${worker.apiKey}`,
      },
      body: JSON.stringify(list),
    });
    expect(asOther.status).toBe(404);
  });

  it("counts sessions per owner, not per key: beyond 16, the owner's least recently used one ends, whichever key opened it", async () => {
    const owner = await server.user('Many Sessions');
    const session = await signInDev(server, { userId: owner.userId });
    const second = (await session.api.POST('/api/keys', { body: { name: 'second agent' } })).data!.key;
    const openWith = async (apiKey: string) => {
      const res = await post({ authorization: `Bearer ${apiKey}` });
      expect(res.status).toBe(200);
      await res.body?.cancel();
      return res.headers.get('mcp-session-id')!;
    };
    const listWith = (apiKey: string, sessionId: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          authorization: `Bearer ${apiKey}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const first: string[] = [];
    for (let i = 0; i < 16; i++) first.push(await openWith(owner.apiKey));
    const alive = await listWith(owner.apiKey, first[0]!);
    expect(alive.status).toBe(200);
    await alive.body?.cancel();
    // The other key's session is the owner's 17th: the oldest of the first key's goes.
    const other = await openWith(second);
    await expect.poll(async () => (await listWith(owner.apiKey, first[1]!)).status).toBe(404);
    for (const [apiKey, id] of [
      [owner.apiKey, first[0]!],
      [owner.apiKey, first[15]!],
      [second, other],
    ] as const) {
      const res = await listWith(apiKey, id);
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
  });

  it('ends a session the client deletes', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${client.apiKey}` } },
    });
    const mcp = new Client({ name: 'test-agent', version: '1.0.0' });
    await mcp.connect(transport);
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    await mcp.close();
    const after = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        authorization: `Bearer ${client.apiKey}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });
});

describe.each<Transport>(['http', 'stdio'])('MCP over %s', (transport) => {
  it('lists one tool per exposed operation, its input schema from the spec', async () => {
    const mcp = await connect(transport, client.apiKey);
    expect(mcp.getInstructions()).toMatch(/owners approve/);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(MCP_OPERATIONS.map((o) => o.operationId));
    for (const tool of tools) {
      const op = operations.get(tool.name)!;
      const params = (op.operation.parameters ?? []).map((p: any) => (p.$ref ? spec.components.parameters[p.$ref.split('/').pop()] : p));
      const expected = [...params.map((p: any) => p.name), ...(op.operation.requestBody ? ['body'] : [])];
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), tool.name).toEqual(expected.sort());
      for (const p of params.filter((p: any) => p.in === 'path')) expect(tool.inputSchema.required).toContain(p.name);
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(op.method === 'get');
      // Every hint stated; no type arrays (single-type dialects read the schema).
      expect(Object.keys(tool.annotations ?? {}).sort(), tool.name).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/"type":\[/);
      // Its result's schema too: an object (as MCP wants), standing on its own (tests/mcp/mcp-output.test.ts checks more).
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(JSON.stringify(tool.outputSchema), tool.name).not.toMatch(/"type":\[|"\$ref":"#\/components/);
      expect(tool.description).toContain(op.operation.summary);
      // Written for a tool: no pointer to a section "above" that a tool's reader does not see.
      expect(JSON.stringify(tool), tool.name).not.toMatch(/\babove\b/);
    }
    const listGigs = tools.find((t) => t.name === 'listGigs')!.inputSchema.properties as Record<string, any>;
    expect(listGigs.owner.enum).toEqual(['me', 'any']);
    expect(listGigs.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    const createGig = tools.find((t) => t.name === 'createGig')!;
    expect((createGig.inputSchema.properties as any).body.required).toEqual(['title']);
    expect(createGig.inputSchema.required).toEqual(['body']);
    expect(tools.find((t) => t.name === 'cancelContract')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tools.find((t) => t.name === 'approveContract')!.description).toMatch(/^Through MCP this never approves on your word alone/);
    expect(tools.find((t) => t.name === 'getGig')!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    // A nullable field of the spec (a milestone's due date) is an anyOf with null, its format inside.
    const round = (tools.find((t) => t.name === 'proposeRound')!.inputSchema.properties as any).body;
    expect(round.properties.milestones.items.properties.due_date).toMatchObject({
      anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }],
    });
  });

  it('a write tool changes what the API shows; a read tool reads it', async () => {
    const mcp = await connect(transport, client.apiKey);
    const created = await mcp.callTool({ name: 'createGig', arguments: { body: { title: `Gig via ${transport}`, tags: ['MCP'] } } });
    expect(created.isError).toBeFalsy();
    const gig = structured(created);
    expect(gig).toMatchObject({ title: `Gig via ${transport}`, tags: ['mcp'], client_user_id: client.userId, status: 'open' });
    const api = await worker.api.GET('/api/gigs/{id}', { params: { path: { id: gig.id } } });
    expect(api.data?.title).toBe(`Gig via ${transport}`);

    // Header parameters are arguments too: the same Idempotency-Key replays the first answer.
    const key = `mcp-${transport}-${Date.now()}`;
    const once = await mcp.callTool({ name: 'createGig', arguments: { 'Idempotency-Key': key, body: { title: 'Once' } } });
    const twice = await mcp.callTool({ name: 'createGig', arguments: { 'Idempotency-Key': key, body: { title: 'Once' } } });
    expect(structured(twice).id).toBe(structured(once).id);

    const read = await mcp.callTool({ name: 'getGig', arguments: { id: gig.id } });
    expect(structured(read)).toEqual(api.data);
    const mine = await mcp.callTool({ name: 'listGigs', arguments: { owner: 'me', limit: 100 } });
    expect(structured(mine).data.map((g: { id: string }) => g.id)).toContain(gig.id);
  });

  it("errors come back as the API's envelope", async () => {
    const mcp = await connect(transport, worker.apiKey);
    const missing = await mcp.callTool({ name: 'getGig', arguments: { id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' } });
    expect(missing.isError).toBe(true);
    expect(structured(missing).error.code).toBe('NOT_FOUND');
    // As JSON text only: structured content would have to match the tool's (success) output schema.
    expect(missing.structuredContent).toBeUndefined();

    const invalid = await mcp.callTool({ name: 'listGigs', arguments: { limit: 0 } });
    expect(structured(invalid).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [expect.objectContaining({ path: 'query.limit' })],
    });

    const flat = await mcp.callTool({ name: 'createGig', arguments: { title: 'no body' } });
    expect(flat.isError).toBe(true);
    expect(structured(flat).error.code).toBe('VALIDATION_FAILED');
    expect(structured(flat).error.issues.map((i: { path: string }) => i.path)).toEqual(['arguments.title', 'arguments.body']);
  });

  describe('approveContract asks the owner', () => {
    let asked: ElicitRequest['params'][];
    const answering = (result: ElicitResult): Answer => {
      return (params) => {
        asked.push(params);
        return result;
      };
    };
    const contractOf = async (id: string) => (await client.api.GET('/api/contracts/{id}', { params: { path: { id } } })).data!;

    it('approves, with the revision_count shown, when the owner confirms', async () => {
      asked = [];
      const { contract } = await pendingContract(client, worker, [
        { title: 'Parser', amount_cents: 60_000, due_date: '2026-12-10' },
        { title: 'Packaging', amount_cents: 40_000 },
      ]);
      const mcp = await connect(transport, client.apiKey, answering({ action: 'accept', content: { confirm: true } }));
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(result.isError).toBeFalsy();
      expect(structured(result).contract.client_approved_at).toEqual(expect.any(String));
      expect((await contractOf(contract.id)).client_approved_at).toEqual(expect.any(String));
      expect((await contractOf(contract.id)).worker_approved_at).toBeNull();

      expect(asked).toHaveLength(1);
      const message = (asked[0] as { message: string }).message;
      for (const term of [
        '$80.00 per hour',
        'Hours per week: 10',
        '2026-12-01',
        '3 days',
        // Each milestone's title quoted on its own line, after its amount (src/mcp/approve.ts).
        '1. $600.00, due 2026-12-10, titled:\n     "Parser"',
        '2. $400.00, titled:\n     "Packaging"',
      ]) {
        expect(message).toContain(term);
      }
      expect(message).toContain('revision_count 0');
      expect(message).toContain('You are the client');
      expect(message).toContain('The gig is titled:\n  "Build a Rust CLI"');
      expect((asked[0] as { requestedSchema: any }).requestedSchema.properties.confirm.type).toBe('boolean');
    });

    it('approves nothing and returns the link when the owner declines, or does not confirm', async () => {
      for (const answer of [{ action: 'decline' }, { action: 'accept', content: { confirm: false } }] as ElicitResult[]) {
        asked = [];
        const { contract } = await pendingContract(client, worker);
        const mcp = await connect(transport, worker.apiKey, answering(answer));
        const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id, body: { revision_count: 0 } } });
        expect(result.isError).toBeFalsy();
        expect(asked).toHaveLength(1);
        expect(structured(result)).toMatchObject({
          approved: false,
          reason: answer.action === 'decline' ? 'declined' : 'not_confirmed',
          approve_url: `${server.url}/#/contracts/${contract.id}`,
        });
        expect((await contractOf(contract.id)).worker_approved_at).toBeNull();
      }
    });

    it('approves nothing and returns the link when the client cannot ask', async () => {
      const { contract } = await pendingContract(client, worker);
      const mcp = await connect(transport, client.apiKey);
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(result)).toMatchObject({ approved: false, reason: 'elicitation_unsupported' });
      expect((result.content as { text: string }[])[0]!.text).toContain(`${server.url}/#/contracts/${contract.id}`);
      expect((await contractOf(contract.id)).client_approved_at).toBeNull();
    });

    it('does not ask about terms that changed, nor about a contract that cannot be approved', async () => {
      asked = [];
      const { contract } = await pendingContract(client, worker);
      const mcp = await connect(transport, client.apiKey, answering({ action: 'accept', content: { confirm: true } }));
      const stale = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id, body: { revision_count: 3 } } });
      expect(structured(stale).error.code).toBe('INVALID_STATE');
      await client.api.POST('/api/contracts/{id}/cancel', { params: { path: { id: contract.id } } });
      const cancelled = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(cancelled).error).toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('cancelled') });
      expect(asked).toHaveLength(0);
      const other = await mcp.callTool({ name: 'approveContract', arguments: { id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' } });
      expect(structured(other).error.code).toBe('NOT_FOUND');
    });
  });
});
