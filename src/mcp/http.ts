// `/mcp`: the MCP server over Streamable HTTP (the SDK's transport), for agents with an API key
// or an OAuth access token issued for /mcp.
//
// - A request with an Origin header other than PUBLIC_URL's (or MCP_ALLOWED_ORIGINS) is refused
//   with 403 before anything else (DNS-rebinding protection).
// - Authentication is the API's own hook (with its rate limits) and takes an API key, or an OAuth
//   access token for /mcp, which acts as its grant's own API key (src/oauth/), never a browser
//   session: no credential, 401 with the API's envelope; each request to /mcp costs 1 unit of the
//   key's budget, and each tool call then costs what its operation costs, since the tool calls the API.
// - Sessions (Mcp-Session-Id) live in the database, not in a process (sessions.ts), so any server
//   process serves any request of a session: each request gets a new MCP server, told the
//   session's `initialize` again (session-transport.ts). Sessions exist because approving asks the
//   owner through elicitation: the client's answer comes in another POST, perhaps to another
//   process, and the relay carries it to the process whose tool call waits for it; so does the
//   cancellation of a request. A session opens once its initialize is answered, and belongs to the
//   key that opened it (another key gets 404, as for an unknown session); it ends when the client
//   deletes it, after 30 idle minutes, or beyond 16 sessions per owner (counted per user, not per
//   key: more keys must not mean more sessions).
// - The server sends nothing outside a request (no list changes, no logs), so there is no
//   standalone stream: GET is 405, which the transport specification allows. What a tool call
//   sends the client goes on that POST's own stream.
// - A tool calls the API in-process (app.inject) with the key of the request that called it, from
//   the caller's address: the operation authenticates, limits and validates as over HTTP.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { presentedKey, principalOf } from '../auth/authenticate.ts';
import { mcpCallHeader } from '../auth/internal-call.ts';
import { SCOPE_NAMES } from '../oauth/scopes.ts';
import type { ApiRequest, ApiResponse, CallApi } from './request.ts';
import type { ToolDefinition } from './schema.ts';
import { createMcpServer, type Extra } from './server.ts';
import { OWNER_ANSWER_TIMEOUT_MS } from './approve.ts';
import { type McpSessionStore, Relay, type SessionOwner, sessionOwnerOf, type StoredSession } from './sessions.ts';
import { type Message, SessionTransport } from './session-transport.ts';

/**
 * The MCP SDK (and zod under it) is loaded on the first MCP request, not at start-up: it was a
 * noticeable part of a cold start and of the heap, and most processes never serve an MCP client
 * (createMcpServer imports the rest of it).
 */
const loadSdk = async () => {
  const [{ StreamableHTTPServerTransport }, { MAX_BATCH_SIZE }, { isInitializeRequest, JSONRPCMessageSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/requestBody.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { StreamableHTTPServerTransport, MAX_BATCH_SIZE, isInitializeRequest, JSONRPCMessageSchema };
};
let sdk: ReturnType<typeof loadSdk> | undefined;
const sdkLoaded = () => (sdk ??= loadSdk());

/**
 * How long an MCP response may be silent: a tool call asking the owner waits up to their time to
 * answer with nothing to send, longer than HTTP_CONNECTION_TIMEOUT_MS allows other connections.
 */
const STREAM_SILENCE_MS = OWNER_ANSWER_TIMEOUT_MS + 60_000;

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface McpRouteOptions {
  tools: ToolDefinition[];
  publicUrl: string;
  /** Origins besides PUBLIC_URL's whose pages may call /mcp (MCP_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  version: string;
  /** The API's authentication hook, wrapped in its rate limits. */
  authenticate: Hook;
  /** Where sessions are kept, shared by every server process. */
  sessions: McpSessionStore;
}

/** What the caller may do: an OAuth token's granted scopes; an API key, everything. */
function scopesOf(request: FastifyRequest): string[] {
  const principal = principalOf(request);
  return [...(principal.kind === 'api_key' && principal.scopes ? principal.scopes : SCOPE_NAMES)];
}

/** The API, in-process, as the caller of the MCP request that carried a tool call. */
function injectCaller(app: FastifyInstance, extra: Extra): CallApi {
  const auth = extra.authInfo;
  const ip = auth?.extra?.ip as string | undefined;
  const requestId = auth?.extra?.requestId as string | undefined;
  return async (request: ApiRequest): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...request.headers, 'user-agent': 'gigmarket-mcp' };
    // The in-process mark lets the API take an OAuth token, which is for /mcp alone.
    if (auth) Object.assign(headers, { authorization: `Bearer ${auth.token}` }, mcpCallHeader());
    if (requestId) headers['x-request-id'] = requestId;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers,
      ...(request.body !== undefined ? { payload: JSON.stringify(request.body) } : {}),
      ...(ip ? { remoteAddress: ip } : {}),
    });
    const json = response.headers['content-type']?.toString().includes('json');
    return { status: response.statusCode, body: response.body === '' ? undefined : json ? response.json() : response.body };
  };
}

/** An answer in the transport's own words (JSON-RPC, no id), before any server is made. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export async function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { sessions } = options;
  const make = () =>
    createMcpServer({
      tools: options.tools,
      publicUrl: options.publicUrl,
      version: options.version,
      callerOf: (extra) => injectCaller(app, extra),
    });
  const relay = new Relay(sessions, (err) => app.log.error({ err }, 'MCP relay failed'));
  /** The servers of requests in progress. */
  const serving = new Set<McpServer>();
  // Before the server closes: open event streams would otherwise hold it open.
  app.addHook('preClose', async () => {
    await Promise.all([...serving].map((mcp) => mcp.close().catch(() => {})));
    await relay.stop();
  });

  /**
   * Serves one request of a session with a new server. `opening` (an initialize): the session opens
   * only as the initialize's successful answer goes out; that answer is JSON, written whole after,
   * so the client learns the session's id only once it names a session.
   */
  async function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    owner: SessionOwner,
    session: StoredSession,
    messages: readonly Message[],
    opening?: () => Promise<void>,
  ) {
    // The transport writes the response itself; headers set so far (x-request-id, rate limits) go with it.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    if (!opening) reply.raw.setHeader('mcp-session-id', session.id);
    reply.raw.setTimeout(STREAM_SILENCE_MS);
    let mcp: McpServer | undefined;
    try {
      const { StreamableHTTPServerTransport } = await sdkLoaded();
      const inner = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: opening !== undefined });
      mcp = await make();
      serving.add(mcp);
      const transport = new SessionTransport(inner, { id: session.id, relay, ...(opening ? { open: opening } : {}) });
      await mcp.connect(transport);
      if (!opening) {
        await transport.replayInitialize(session.initialize);
        await transport.receive(messages);
      }
      const raw = request.raw as IncomingMessage & { auth?: AuthInfo };
      raw.auth = {
        token: presentedKey(request) ?? '',
        clientId: owner.id,
        scopes: scopesOf(request),
        extra: { ip: request.ip, requestId: request.id },
      };
      await inner.handleRequest(raw, reply.raw, request.body);
    } catch (err) {
      // Past hijack, Fastify's error handler cannot answer: say it in JSON-RPC, without detail.
      request.log.error({ err }, 'MCP transport failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      } else reply.raw.end();
    } finally {
      if (mcp) serving.delete(mcp);
      await mcp?.close().catch(() => {});
    }
  }

  const allowed = new Set([new URL(options.publicUrl).origin, ...options.allowedOrigins]);
  await app.register(async (scope) => {
    // DNS-rebinding protection: a page of another origin (a rebound name resolving to this
    // server) is refused before authentication; agents and servers send no Origin.
    scope.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (origin === undefined || allowed.has(origin)) return;
      const message = `a page at ${origin} may not call /mcp: only ${[...allowed].join(', ')} (MCP_ALLOWED_ORIGINS adds others)`;
      return reply.code(403).send({ error: { code: 'FORBIDDEN', message, issues: [] } });
    });
    scope.addHook('onRequest', options.authenticate);
    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      // operationId marks a route the API's authentication counts (not the budget of pages);
      // security: an API key, never a browser session; oauthResource: an OAuth access token issued
      // for /mcp too (src/oauth/), which acts as its grant's own API key.
      config: { operationId: 'mcp', security: [{ bearerApiKey: [] }, { headerApiKey: [] }], rateLimitCost: 1, oauthResource: true },
      handler: async (request, reply) => {
        const owner = sessionOwnerOf(principalOf(request));
        if (!owner) throw new Error('unreachable: /mcp takes no browser session');
        if (request.method === 'GET') {
          reply.header('allow', 'POST, DELETE');
          return jsonRpcError(reply, 405, -32000, 'Method not allowed: no standalone stream (the server sends nothing outside a request)');
        }
        const types = await sdkLoaded();
        const body = request.body;
        const initialize = request.method === 'POST' && types.isInitializeRequest(body);
        const header = request.headers['mcp-session-id'];
        let session: StoredSession | undefined;
        if (typeof header === 'string') {
          session = await sessions.resume(header, owner);
          // The transport's own answer to an unknown session: the client starts a new one.
          if (!session) return jsonRpcError(reply, 404, -32001, 'Session not found');
          if (initialize) return jsonRpcError(reply, 400, -32600, 'Invalid Request: Server already initialized');
        } else if (!initialize) {
          return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        }
        if (request.method === 'DELETE') {
          await sessions.close(session!.id);
          return reply.code(200).send();
        }
        if (session) {
          // A batch the transport refuses (too long, or any message in it invalid) is refused whole
          // (in serve): nothing in it is delivered.
          const all = Array.isArray(body) ? (body.length <= types.MAX_BATCH_SIZE ? body : []) : [body];
          const valid = all.every((m) => types.JSONRPCMessageSchema.safeParse(m).success);
          return serve(request, reply, owner, session, valid ? (all as Message[]) : []);
        }
        const { params } = body as { params: Record<string, unknown> };
        const init = { protocolVersion: params.protocolVersion, capabilities: params.capabilities, clientInfo: params.clientInfo };
        // Random, not time-ordered: the id is the session's name on every request.
        const opened = { id: randomUUID(), initialize: init };
        const open = async () => {
          try {
            await sessions.open(opened.id, owner, init);
          } catch (err) {
            request.log.error({ err }, 'MCP session not opened');
            throw err;
          }
          reply.raw.setHeader('mcp-session-id', opened.id);
        };
        return serve(request, reply, owner, opened, [], open);
      },
    });
  });
}
