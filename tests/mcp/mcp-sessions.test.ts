// MCP sessions kept in the database (src/mcp/sessions.ts), so that any server process serves any
// request of a session. On a server Postgres: two real `node dist/server.js` processes behind a
// plain round-robin balancer (the client's fetch) serve one session alternately, an approval's
// answer landing on the process that did not ask, a cancellation on the process that does not
// serve the call; the session outlives the process that opened it. On either database, one
// process: the rows, expiry, a refused initialize, cancellation, messages nobody waits for, and
// concurrent approvals in one session, each answered by its own answer (each request's server
// numbers its requests from 0). A tool call stays in flight while the embeddings endpoint (a
// local fake) holds its search.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import createClient from 'openapi-fetch';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { openDatabase, type Database } from '../../db/client.ts';
import { mcpMessages, mcpSessions } from '../../db/schema.ts';
import { createUserWithKey } from '../../src/services/api-keys.ts';
import { housekeep } from '../../src/services/housekeeping.ts';
import { SESSIONS_PER_OWNER } from '../../src/mcp/sessions.ts';
import type { paths } from '../../src/generated/api.d.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import {
  killRunningServers,
  processDatabase,
  spawnServer,
  waitUntilHealthy,
  type ProcessDatabase,
  type ServerProcess,
} from '../helpers/server-process.ts';
import { specValidation } from '../helpers/spec-validator.ts';
import { startFakeEmbeddings, type FakeEmbeddings } from '../fakes/embeddings.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { structured } from '../helpers/mcp.ts';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;
type Answer = (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult> | ElicitResult;

/** One request as the balancer passed it on: to which process, and what it carried. */
interface Served {
  to: string;
  method: string;
  /** The JSON-RPC method, or `response` for the client's answer to a request of the server. */
  rpc: string;
}

/** A plain round-robin balancer in front of `targets`: each request to the next, whatever it is. */
function roundRobin(targets: Map<string, string>) {
  const served: Served[] = [];
  let turn = 0;
  const fetchVia: FetchLike = (url, init) => {
    const names = [...targets.keys()];
    const to = names[turn++ % names.length]!;
    const target = new URL(url);
    target.host = new URL(targets.get(to)!).host;
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    served.push({ to, method: init?.method ?? 'GET', rpc: body === undefined ? '' : (body.method ?? 'response') });
    return fetch(target, init);
  };
  return { fetch: fetchVia, served };
}

/** The SDK's client over Streamable HTTP through `fetchVia`; with `answer`, it declares form elicitation and answers with it. */
async function connect(baseUrl: string, apiKey: string, fetchVia?: FetchLike, answer?: Answer) {
  const mcp = new Client({ name: 'test-agent', version: '1.0.0' }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  if (answer) mcp.setRequestHandler(ElicitRequestSchema, async (request, extra) => answer(request.params, extra.signal));
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    ...(fetchVia ? { fetch: fetchVia } : {}),
  });
  await mcp.connect(transport);
  return { mcp, transport };
}

/** A JSON-RPC POST to one process directly, in the session given. */
const postTo = (baseUrl: string, apiKey: string, sessionId: string | undefined, message: object) =>
  fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'curl', version: '1' } },
};
const toolsList = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** A new session of this key, opened at this process: its id. */
async function openSession(baseUrl: string, apiKey: string): Promise<string> {
  const opened = await postTo(baseUrl, apiKey, undefined, initialize);
  expect(opened.status).toBe(200);
  // The answer is written whole once the session is open: its id already names a session.
  expect(opened.headers.get('content-type')).toContain('application/json');
  expect(await opened.json()).toMatchObject({ id: 1, result: { protocolVersion: expect.any(String) } });
  return opened.headers.get('mcp-session-id')!;
}

/** The JSON-RPC messages of a POST's event stream, read to its end. */
async function streamed(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

/** Env for a server whose searches the fake embeddings endpoint may hold (EMBEDDINGS_TIMEOUT_MS: how long at most). */
const embeddingsEnv = (fake: FakeEmbeddings) => ({ ...fake.env, EMBEDDINGS_TIMEOUT_MS: '4000' });

/**
 * A searchGigs call (JSON-RPC id 7) posted to `callAt`, in flight while the embeddings endpoint
 * holds it; the client cancels it through `cancelAt`. The call's response ends without an answer
 * (without the cancellation, the search would answer once the endpoint timed out).
 */
async function cancelHeldSearch(
  fake: FakeEmbeddings,
  apiKey: string,
  sessionId: string,
  callAt: string,
  cancelAt: string,
  db: Database['db'],
) {
  const q = `held search ${randomUUID()}`;
  fake.fail('timeout');
  try {
    const call = await postTo(callAt, apiKey, sessionId, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'searchGigs', arguments: { q } },
    });
    expect(call.status).toBe(200);
    await expect.poll(() => fake.requests.some((r) => r.input.includes(q))).toBe(true);
    // While the call is in flight, the only row is the address its cancellation may come to.
    expect(await waitingIn(db, sessionId)).toEqual([{ address: 'cancel:7', message: null }]);
    const cancel = await postTo(cancelAt, apiKey, sessionId, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'the agent moved on' },
    });
    expect(cancel.status).toBe(202);
    expect(await streamed(call)).toEqual([]);
  } finally {
    fake.fail(null);
  }
  expect(await waitingIn(db, sessionId)).toEqual([]);
}

/** The addresses where a process waits in this session, and what came for them. */
const waitingIn = (db: Database['db'], sessionId: string) =>
  db.select({ address: mcpMessages.address, message: mcpMessages.message }).from(mcpMessages).where(eq(mcpMessages.sessionId, sessionId));

/** Confirms the approval of `yes`, declines any other: each answer names the contract it is for. */
const confirmOnly =
  (yes: string, asked: ElicitRequest['params'][]): Answer =>
  (params) => {
    asked.push(params);
    return (params as { message: string }).message.includes(yes) ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  };

/**
 * Two approvals asked at once in one session (each request's server numbers its requests from 0):
 * the owner confirms the first and declines the second, and each call gets its own answer.
 */
async function approveTwoAtOnce(client: TestUser, worker: TestUser, baseUrl: string, fetchVia?: FetchLike): Promise<Client> {
  const first = await pendingContract(client, worker);
  const second = await pendingContract(client, worker);
  const asked: ElicitRequest['params'][] = [];
  const { mcp } = await connect(baseUrl, client.apiKey, fetchVia, confirmOnly(first.contract.id, asked));
  const [yes, no] = await Promise.all([
    mcp.callTool({ name: 'approveContract', arguments: { id: first.contract.id } }),
    mcp.callTool({ name: 'approveContract', arguments: { id: second.contract.id } }),
  ]);
  expect(asked).toHaveLength(2);
  expect(structured(yes).contract.client_approved_at).toEqual(expect.any(String));
  expect(structured(no)).toMatchObject({ approved: false, reason: 'declined' });
  const read = await client.api.GET('/api/contracts/{id}', { params: { path: { id: second.contract.id } } });
  expect(read.data!.client_approved_at).toBeNull();
  return mcp;
}

describe.runIf(process.env.DATABASE_URL)('one MCP session, two server processes on one Postgres, round-robin', () => {
  let database: ProcessDatabase | undefined;
  let db: Database | undefined;
  let processes: ServerProcess[] = [];
  let client: TestUser;
  let worker: TestUser;
  let embeddings: FakeEmbeddings | undefined;
  const open: Client[] = [];

  beforeAll(async () => {
    database = await processDatabase();
    embeddings = await startFakeEmbeddings();
    const env = { ...database.env, ...embeddingsEnv(embeddings), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' };
    // A copy of the migrated template: neither process has a migration to apply, so both start at once.
    processes = await Promise.all([spawnServer(env), spawnServer(env)]);
    await Promise.all(processes.map(waitUntilHealthy));
    db = await openDatabase({ databaseUrl: (database.env as { DATABASE_URL: string }).DATABASE_URL, max: 2 });
    const user = async (name: string) => {
      const made = await createUserWithKey({ db: db!.db }, name);
      const api = createClient<paths>({ baseUrl: processes[0]!.url, headers: { authorization: `Bearer ${made.apiKey}` } });
      api.use(specValidation);
      return { ...made, api } as TestUser;
    };
    client = await user('Client Co');
    worker = await user('Worker Bee');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => {})));
    killRunningServers();
    await Promise.all(processes.map((p) => p.exited));
    await db?.close();
    await database?.drop();
    await embeddings?.close();
  }, 120_000);

  const bothProcesses = () =>
    new Map([
      ['A', processes[0]!.url],
      ['B', processes[1]!.url],
    ]);

  it('serves initialize, a list, tool calls, an approval answered at the other process, and a DELETE, alternately', async () => {
    const { contract } = await pendingContract(client, worker);
    const balancer = roundRobin(bothProcesses());
    const asked: ElicitRequest['params'][] = [];
    const { mcp, transport } = await connect(processes[0]!.url, client.apiKey, balancer.fetch, confirmOnly(contract.id, asked));
    open.push(mcp);
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // After initialized, the client asks for a standalone stream once: 405, none is offered.
    await vi.waitFor(() => expect(balancer.served.map((s) => s.method)).toContain('GET'));

    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toContain('approveContract');
    const gig = await mcp.callTool({ name: 'createGig', arguments: { body: { title: 'Served by two processes' } } });
    expect(gig.isError).toBeFalsy();
    const approved = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
    expect(approved.isError).toBeFalsy();
    expect(structured(approved).contract.client_approved_at).toEqual(expect.any(String));
    expect(asked).toHaveLength(1);
    await transport.terminateSession();

    expect(balancer.served).toEqual([
      { to: 'A', method: 'POST', rpc: 'initialize' },
      { to: 'B', method: 'POST', rpc: 'notifications/initialized' },
      { to: 'A', method: 'GET', rpc: '' },
      { to: 'B', method: 'POST', rpc: 'tools/list' },
      { to: 'A', method: 'POST', rpc: 'tools/call' },
      // The question goes out on B's stream of the call; the owner's answer lands on A.
      { to: 'B', method: 'POST', rpc: 'tools/call' },
      { to: 'A', method: 'POST', rpc: 'response' },
      { to: 'B', method: 'DELETE', rpc: '' },
    ]);
    const read = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(read.data!.client_approved_at).toEqual(expect.any(String));
    // Deleted through B, the session is gone on both; nothing is left waiting for a process.
    for (const p of processes) {
      const after = await postTo(p.url, client.apiKey, sessionId, toolsList);
      expect(after.status).toBe(404);
      expect(await after.json()).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
    }
    const [row] = await db!.db.select().from(mcpSessions).where(eq(mcpSessions.id, sessionId));
    expect(row).toMatchObject({
      userId: client.userId,
      principalKind: 'api_key',
      principalId: client.apiKeyId,
      closedAt: expect.any(Date),
    });
    expect(await db!.db.select().from(mcpMessages).where(eq(mcpMessages.sessionId, sessionId))).toEqual([]);
  });

  it('two approvals at once, asked from both processes, each get their own answer', async () => {
    const balancer = roundRobin(bothProcesses());
    open.push(await approveTwoAtOnce(client, worker, processes[0]!.url, balancer.fetch));
    const calls = balancer.served.filter((s) => s.rpc === 'tools/call').map((s) => s.to);
    expect(new Set(calls)).toEqual(new Set(['A', 'B']));
  });

  it('a tool call cancelled through the other process stops asking the owner (the client is told)', async () => {
    const { contract } = await pendingContract(client, worker);
    const balancer = roundRobin(bothProcesses());
    const call = new AbortController();
    let withdrawn: (() => void) | undefined;
    const questionWithdrawn = new Promise<void>((resolve) => {
      withdrawn = resolve;
    });
    const { mcp } = await connect(processes[0]!.url, client.apiKey, balancer.fetch, (_params, signal) => {
      // The agent gives up while the owner is being asked; the question is then withdrawn.
      call.abort();
      return new Promise<ElicitResult>((resolve) =>
        signal.addEventListener('abort', () => {
          withdrawn!();
          resolve({ action: 'cancel' });
        }),
      );
    });
    open.push(mcp);
    await expect(
      mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } }, undefined, { signal: call.signal }),
    ).rejects.toThrow();
    await questionWithdrawn;
    const served = balancer.served.slice(-2);
    expect(served.map((s) => s.rpc)).toEqual(['tools/call', 'notifications/cancelled']);
    expect(served[0]!.to).not.toBe(served[1]!.to);
    const read = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(read.data!.client_approved_at).toBeNull();
  });

  it('an ordinary tool call cancelled through the other process stops: its response ends without an answer', async () => {
    const sessionId = await openSession(processes[0]!.url, worker.apiKey);
    await cancelHeldSearch(embeddings!, worker.apiKey, sessionId, processes[0]!.url, processes[1]!.url, db!.db);
  });

  it('outlives the process that opened it: with A stopped, B serves the session', async () => {
    const targets = bothProcesses();
    const balancer = roundRobin(targets);
    const { mcp, transport } = await connect(processes[0]!.url, worker.apiKey, balancer.fetch);
    open.push(mcp);
    const sessionId = transport.sessionId!;
    expect(balancer.served[0]).toMatchObject({ to: 'A', rpc: 'initialize' });
    await vi.waitFor(() => expect(balancer.served.map((s) => s.method)).toContain('GET'));
    processes[0]!.child.kill('SIGTERM');
    expect(await processes[0]!.exited).toMatchObject({ code: 0 });
    targets.delete('A');
    const mine = await mcp.callTool({ name: 'listGigs', arguments: { owner: 'any', limit: 1 } });
    expect(mine.isError).toBeFalsy();
    expect(balancer.served.at(-1)).toMatchObject({ to: 'B', rpc: 'tools/call' });
    expect(transport.sessionId).toBe(sessionId);
    const direct = await postTo(processes[1]!.url, worker.apiKey, sessionId, toolsList);
    expect(direct.status).toBe(200);
    await direct.body?.cancel();
  });
});

describe('MCP sessions as rows (one process, either database)', () => {
  let server: TestServer;
  let client: TestUser;
  let worker: TestUser;
  let embeddings: FakeEmbeddings;
  const open: Client[] = [];

  beforeAll(async () => {
    embeddings = await startFakeEmbeddings();
    server = await startTestServer(embeddingsEnv(embeddings));
    [client, worker] = await server.users('Client Co', 'Worker Bee');
  });

  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => {})));
    await server?.close();
    await embeddings?.close();
  });

  it("a session is a row of its key, with the client's initialize; the client deletes it, and housekeeping forgets it", async () => {
    const opened = await postTo(server.url, client.apiKey, undefined, initialize);
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    const id = opened.headers.get('mcp-session-id')!;
    const [row] = await server.db.select().from(mcpSessions).where(eq(mcpSessions.id, id));
    expect(row).toMatchObject({
      userId: client.userId,
      principalKind: 'api_key',
      principalId: client.apiKeyId,
      initialize: initialize.params,
      closedAt: null,
    });
    const deleted = await fetch(`${server.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${client.apiKey}`, 'mcp-session-id': id },
    });
    expect(deleted.status).toBe(200);
    expect((await postTo(server.url, client.apiKey, id, toolsList)).status).toBe(404);
    await housekeep({ db: server.db });
    expect(await server.db.select().from(mcpSessions).where(eq(mcpSessions.id, id))).toEqual([]);
  });

  it('ends a session idle for 30 minutes', async () => {
    const opened = await postTo(server.url, client.apiKey, undefined, initialize);
    await opened.body?.cancel();
    const id = opened.headers.get('mcp-session-id')!;
    const used = await postTo(server.url, client.apiKey, id, toolsList);
    expect(used.status).toBe(200);
    await used.body?.cancel();
    await server.db
      .update(mcpSessions)
      .set({ lastSeenAt: new Date(Date.now() - 31 * 60_000) })
      .where(eq(mcpSessions.id, id));
    expect((await postTo(server.url, client.apiKey, id, toolsList)).status).toBe(404);
  });

  it('asks for a session after initialize, offers no standalone stream, and names no session by a malformed id', async () => {
    const none = await postTo(server.url, client.apiKey, undefined, toolsList);
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ error: { message: 'Bad Request: Mcp-Session-Id header is required' } });
    const opened = await postTo(server.url, client.apiKey, undefined, initialize);
    await opened.body?.cancel();
    const id = opened.headers.get('mcp-session-id')!;
    const stream = await fetch(`${server.url}/mcp`, {
      headers: { authorization: `Bearer ${client.apiKey}`, accept: 'text/event-stream', 'mcp-session-id': id },
    });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST, DELETE');
    await stream.body?.cancel();
    expect((await postTo(server.url, client.apiKey, 'not-a-uuid', toolsList)).status).toBe(404);
    const again = await postTo(server.url, client.apiKey, id, initialize);
    expect(again.status).toBe(400);
  });

  it('two approvals at once in one session each get their own answer', async () => {
    open.push(await approveTwoAtOnce(client, worker, server.url));
  });

  it('a tool call the client cancels stops: its response ends without an answer, and nothing is left waiting', async () => {
    const sessionId = await openSession(server.url, worker.apiKey);
    await cancelHeldSearch(embeddings, worker.apiKey, sessionId, server.url, server.url, server.db);
  });

  it('keeps no answer or cancellation that no request waits for', async () => {
    const sessionId = await openSession(server.url, client.apiKey);
    const strays = Array.from({ length: 50 }, (_, i) => [
      { jsonrpc: '2.0', id: `nobody-asked-${i}`, result: {} },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1000 + i } },
    ]).flat();
    const res = await postTo(server.url, client.apiKey, sessionId, strays);
    expect(res.status).toBe(202);
    expect(await waitingIn(server.db, sessionId)).toEqual([]);
  });

  it("an initialize the transport refuses opens no session and ends none of the owner's", async () => {
    const owner = await server.user('Sixteen Sessions');
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS_PER_OWNER; i++) ids.push(await openSession(server.url, owner.apiKey));
    const refused = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(initialize),
    });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    await refused.body?.cancel();
    const rows = await server.db
      .select({ id: mcpSessions.id })
      .from(mcpSessions)
      .where(and(eq(mcpSessions.userId, owner.userId), isNull(mcpSessions.closedAt)));
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const oldest = await postTo(server.url, owner.apiKey, ids[0]!, toolsList);
    expect(oldest.status).toBe(200);
    await oldest.body?.cancel();
  });
});
