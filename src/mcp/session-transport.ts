// The transport one HTTP request's MCP server talks through: the SDK's Streamable HTTP transport,
// stateless (a new one, and a new server, for every request), with the session around it, so that
// whichever process serves a request, the server behaves as the session's own (http.ts).
// - Before the request's messages, the session's `initialize` is replayed into the new server (its
//   answer kept back), then `notifications/initialized`: the server knows the client's capabilities.
// - A request the server sends the client (an elicitation) goes out under an id of its own, unique
//   across processes (each server numbers its requests from 0), and is expected through the relay:
//   the client's answer may reach any process, and comes back to the server under the server's id.
// - While a client request waits on such an answer, its cancellation is expected through the relay too.
// Only the SDK's public Transport interface is used; the SDK itself is not imported here (it loads
// with the first MCP request, http.ts).
import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Relay } from './sessions.ts';

/** The replayed initialize's id; its answer is the only one kept back. */
const REPLAYED_INITIALIZE = 'gigmarket:replayed-initialize';

type Message = Record<string, unknown>;
const isRequest = (m: Message) => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Message) => !('method' in m) && 'id' in m && ('result' in m || 'error' in m);
const cancelledId = (m: Message) =>
  m.method === 'notifications/cancelled' && !('id' in m) ? (m.params as { requestId?: RequestId } | undefined)?.requestId : undefined;

/**
 * Where a client's message (already a valid JSON-RPC message) is to be delivered when it is not
 * the request of the POST that carries it: a response goes to the request it answers, a
 * cancellation to the request it cancels. Undefined for anything else.
 */
export function addressOf(message: Message): string | undefined {
  if (isResponse(message)) return `response:${String(message.id)}`;
  const cancelled = cancelledId(message);
  return cancelled === undefined ? undefined : `cancel:${String(cancelled)}`;
}

interface Sent {
  wireId: string;
  stop: () => void;
}

export class SessionTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sessionId: string | undefined;
  private readonly inner: StreamableHTTPServerTransport;
  private readonly relay: Relay | undefined;
  private replayed: (() => void) | undefined;
  /** The server's requests to the client still unanswered, by the server's own id. */
  private readonly sent = new Map<RequestId, Sent>();
  /** Client requests whose cancellation is expected, by their id: the function stops expecting it. */
  private readonly cancellable = new Map<RequestId, () => void>();

  /** Without a session (an initialize request), nothing is expected through the relay. */
  constructor(inner: StreamableHTTPServerTransport, session: { id: string; relay: Relay } | undefined) {
    this.inner = inner;
    this.sessionId = session?.id;
    this.relay = session?.relay;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      // Responses and cancellations were handed to their addressees before (http.ts, relay.route).
      if (addressOf(message as Message) === undefined) this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.closed();
    await this.inner.start();
  }

  /** Replays the session's initialize into the server, keeping its answer back, then `notifications/initialized`. */
  async replayInitialize(params: Record<string, unknown>): Promise<void> {
    const answered = new Promise<void>((resolve) => {
      this.replayed = resolve;
    });
    this.onmessage?.({ jsonrpc: '2.0', id: REPLAYED_INITIALIZE, method: 'initialize', params } as JSONRPCMessage);
    await answered;
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Message;
    if (this.replayed && isResponse(m) && m.id === REPLAYED_INITIALIZE) {
      this.replayed();
      this.replayed = undefined;
      return;
    }
    let out = message;
    if (isRequest(m) && this.relay) out = await this.sending(m, options?.relatedRequestId);
    else if (isResponse(m)) this.answered(m.id as RequestId);
    else {
      // The server cancels a request of its own (it timed out): the client knows it by its wire id.
      const cancelled = cancelledId(m);
      const sent = cancelled === undefined ? undefined : this.sent.get(cancelled);
      if (sent) out = { ...m, params: { ...(m.params as object), requestId: sent.wireId } } as unknown as JSONRPCMessage;
    }
    return this.inner.send(out, options);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private async sending(request: Message, relatedRequestId: RequestId | undefined): Promise<JSONRPCMessage> {
    const relay = this.relay!;
    const sessionId = this.sessionId!;
    const id = request.id as RequestId;
    const wireId = randomUUID();
    const stop = await relay.expect(sessionId, `response:${wireId}`, (answer) => {
      this.sent.delete(id);
      this.onmessage?.({ ...(answer as Message), id } as JSONRPCMessage);
    });
    this.sent.set(id, { wireId, stop });
    if (relatedRequestId !== undefined && !this.cancellable.has(relatedRequestId)) {
      const deliver = (cancellation: unknown) => this.onmessage?.(cancellation as JSONRPCMessage);
      this.cancellable.set(relatedRequestId, await relay.expect(sessionId, `cancel:${String(relatedRequestId)}`, deliver));
    }
    return { ...request, id: wireId } as JSONRPCMessage;
  }

  /** The server answered a client request: its cancellation is no longer expected. */
  private answered(id: RequestId): void {
    this.cancellable.get(id)?.();
    this.cancellable.delete(id);
  }

  private closed(): void {
    for (const { stop } of this.sent.values()) stop();
    for (const stop of this.cancellable.values()) stop();
    this.sent.clear();
    this.cancellable.clear();
    this.onclose?.();
  }
}
