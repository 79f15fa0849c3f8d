// `/mcp`: the MCP server over Streamable HTTP (the SDK's transport), for agents with an API key.
//
// - A request with an Origin header other than PUBLIC_URL's (or MCP_ALLOWED_ORIGINS) is refused
//   with 403 before anything else (DNS-rebinding protection).
// - Authentication is the API's own hook (with its rate limits) and takes API keys only: no key,
//   401 with the API's envelope; each request to /mcp costs 1 unit of the key's budget, and each
//   tool call then costs what its operation costs, since the tool calls the API.
// - Sessions are stateful (Mcp-Session-Id), because approving asks the owner through elicitation:
//   the client's answer comes in another POST, which must reach the tool call that waits. A
//   session belongs to the key that opened it (another key gets 404, as for an unknown session),
//   lives in this process's memory (behind several processes, route a session to one of them),
//   and ends when the client deletes it, after 30 idle minutes, or beyond 16 sessions per owner
//   (counted per user, not per key: more keys must not mean more sessions).
// - A tool calls the API in-process (app.inject) with the key of the request that called it, from
//   the caller's address: the operation authenticates, limits and validates as over HTTP.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { presentedKey, principalOf } from '../auth/authenticate.ts';
import type { ApiRequest, ApiResponse, CallApi } from './request.ts';
import type { ToolDefinition } from './schema.ts';
import { createMcpServer, type Extra } from './server.ts';
import { OWNER_ANSWER_TIMEOUT_MS } from './approve.ts';

/**
 * The MCP SDK (and zod under it) is loaded on the first MCP request, not at start-up: it was a
 * noticeable part of a cold start and of the heap, and most processes never serve an MCP client
 * (createMcpServer imports the rest of it).
 */
let transport: Promise<typeof StreamableHTTPServerTransport> | undefined;
const loadTransport = () =>
  (transport ??= import('@modelcontextprotocol/sdk/server/streamableHttp.js').then((m) => m.StreamableHTTPServerTransport));

const IDLE_MS = 30 * 60_000;
/**
 * How long an MCP response may be silent: a tool call asking the owner waits up to their time to
 * answer with nothing to send, longer than HTTP_CONNECTION_TIMEOUT_MS allows other connections.
 */
const STREAM_SILENCE_MS = OWNER_ANSWER_TIMEOUT_MS + 60_000;
const SESSIONS_PER_OWNER = 16;

interface Session {
  id?: string;
  apiKeyId: string;
  /** The key's owner, whose sessions are counted together. */
  userId: string;
  mcp: McpServer;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface McpRouteOptions {
  tools: ToolDefinition[];
  publicUrl: string;
  /** Origins besides PUBLIC_URL's whose pages may call /mcp (MCP_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  version: string;
  /** The API's authentication hook, wrapped in its rate limits. */
  authenticate: Hook;
}

/** The API, in-process, as the caller of the MCP request that carried a tool call. */
function injectCaller(app: FastifyInstance, extra: Extra): CallApi {
  const auth = extra.authInfo;
  const ip = auth?.extra?.ip as string | undefined;
  const requestId = auth?.extra?.requestId as string | undefined;
  return async (request: ApiRequest): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...request.headers, 'user-agent': 'gigmarket-mcp' };
    if (auth) headers.authorization = `Bearer ${auth.token}`;
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

class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly make: () => Promise<McpServer>;

  constructor(make: () => Promise<McpServer>) {
    this.make = make;
  }

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  /** A server and transport for a request without a session; kept once the client initializes. */
  async open(apiKeyId: string, userId: string): Promise<Session> {
    const mcp = await this.make();
    const Transport = await loadTransport();
    const session: Session = { apiKeyId, userId, mcp, lastSeen: Date.now() } as Session;
    session.transport = new Transport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        this.byId.set(id, session);
        this.trim(userId);
      },
    });
    session.transport.onclose = () => {
      if (session.id) this.byId.delete(session.id);
    };
    await mcp.connect(session.transport);
    return session;
  }

  /** Beyond the per-owner cap, the least recently used sessions of that owner end, whichever key opened them. */
  private trim(userId: string): void {
    const mine = [...this.byId.values()].filter((s) => s.userId === userId).sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of mine.slice(0, Math.max(0, mine.length - SESSIONS_PER_OWNER))) void this.close(session);
  }

  async close(session: Session): Promise<void> {
    if (session.id) this.byId.delete(session.id);
    await session.mcp.close().catch(() => {});
  }

  sweep(now = Date.now()): void {
    for (const session of this.byId.values()) if (now - session.lastSeen > IDLE_MS) void this.close(session);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.byId.values()].map((s) => this.close(s)));
  }
}

function sessionNotFound(reply: FastifyReply): FastifyReply {
  // The transport's own answer to an unknown session: the client starts a new one.
  return reply.code(404).send({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
}

export async function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const make = () =>
    createMcpServer({
      tools: options.tools,
      publicUrl: options.publicUrl,
      version: options.version,
      callerOf: (extra) => injectCaller(app, extra),
    });
  const sessions = new Sessions(make);
  const sweeper = setInterval(() => sessions.sweep(), 60_000).unref();
  // Before the server closes: open event streams would otherwise hold it open.
  app.addHook('preClose', async () => {
    clearInterval(sweeper);
    await sessions.closeAll();
  });

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
      // security: API keys only, never a browser session.
      config: { operationId: 'mcp', security: [{ bearerApiKey: [] }, { headerApiKey: [] }], rateLimitCost: 1 },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (principal.kind !== 'api_key') throw new Error('unreachable: /mcp takes API keys only');
        const header = request.headers['mcp-session-id'];
        let session: Session | undefined;
        if (typeof header === 'string') {
          session = sessions.get(header);
          if (!session || session.apiKeyId !== principal.apiKeyId) return sessionNotFound(reply);
        } else {
          session = await sessions.open(principal.apiKeyId, principal.userId);
        }
        session.lastSeen = Date.now();
        const raw = request.raw as IncomingMessage & { auth?: AuthInfo };
        raw.auth = {
          token: presentedKey(request) ?? '',
          clientId: principal.apiKeyId,
          scopes: [],
          extra: { ip: request.ip, requestId: request.id },
        };
        // The transport writes the response itself; headers set so far (x-request-id, rate limits) go with it.
        for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
        reply.hijack();
        reply.raw.setTimeout(STREAM_SILENCE_MS);
        try {
          await session.transport.handleRequest(raw, reply.raw, request.body);
        } catch (err) {
          // Past hijack, Fastify's error handler cannot answer: say it in JSON-RPC, without detail.
          request.log.error({ err }, 'MCP transport failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { 'content-type': 'application/json' });
            reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
          } else reply.raw.end();
        }
        // A request that did not initialize a session leaves nothing behind.
        if (!session.transport.sessionId) await session.mcp.close().catch(() => {});
      },
    });
  });
}
