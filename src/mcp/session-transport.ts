// The transport one HTTP request's MCP server talks through: the SDK's Streamable HTTP transport,
// stateless (a new one, and a new server, for every request), with the session around it, so that
// whichever process serves a request, the server behaves as the session's own (http.ts).
// - An initialize opens the session only as its successful answer goes out (`open`, before it):
//   an initialize the transport or the server refuses opens nothing, and ends no other session.
// - Before a later request's messages, the session's `initialize` is replayed into the new server
//   (its answer kept back), then `notifications/initialized`: the server knows the client's capabilities.
// - The client's responses and cancellations in the POST go to the request they concern, wherever
//   it is served (the relay), not to this request's server.
// - The cancellation of each client request of the POST is expected through the relay until the
//   request is answered: the client may send it to any process. A cancelled request gets no
//   answer, so once each request of the POST is answered or cancelled the response ends here (the
//   SDK's would wait for the missing answer).
// - A request the server sends the client (an elicitation) goes out under an id of its own, unique
//   across processes (each server numbers its requests from 0), and is expected through the relay:
//   the client's answer may reach any process, and comes back to the server under the server's id.
// Only the SDK's public Transport interface is used; the SDK itself is not imported here (it loads
// with the first MCP request, http.ts).
import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Deliver, Relay } from './sessions.ts';

/** The replayed initialize's id; its answer is the only one kept back. */
const REPLAYED_INITIALIZE = 'gigmarket:replayed-initialize';

export type Message = Record<string, unknown>;
const isRequest = (m: Message) => typeof m.method === 'string' && 'id' in m;
const isResponse = (m: Message) => !('method' in m) && 'id' in m && ('result' in m || 'error' in m);
const cancelledId = (m: Message) =>
  m.method === 'notifications/cancelled' && !('id' in m) ? (m.params as { requestId?: RequestId } | undefined)?.requestId : undefined;
const cancelAddress = (id: unknown) => `cancel:${String(id)}`;

/**
 * Where a client's message (already a valid JSON-RPC message) is to be delivered when it is not
 * the request of the POST that carries it: a response goes to the request it answers, a
 * cancellation to the request it cancels. Undefined for anything else.
 */
function addressOf(message: Message): string | undefined {
  if (isResponse(message)) return `response:${String(message.id)}`;
  const cancelled = cancelledId(message);
  return cancelled === undefined ? undefined : cancelAddress(cancelled);
}

export interface TransportSession {
  id: string;
  relay: Relay;
  /** For an initialize only: opens the session, before the initialize's successful answer goes out. */
  open?: () => Promise<void>;
}

export class SessionTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sessionId: string;
  private readonly inner: StreamableHTTPServerTransport;
  private readonly relay: Relay;
  private open: (() => Promise<void>) | undefined;
  private replayed: (() => void) | undefined;
  /** The server's requests to the client still unanswered: the server's own id, by the address of the answer. */
  private readonly awaiting = new Map<string, RequestId>();
  /** The cancellation addresses of the POST's client requests still unanswered. */
  private readonly unanswered = new Set<string>();
  private someCancelled = false;
  private ended = false;

  constructor(inner: StreamableHTTPServerTransport, session: TransportSession) {
    this.inner = inner;
    this.sessionId = session.id;
    this.relay = session.relay;
    this.open = session.open;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      // Responses and cancellations went to their addressees before (receive).
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

  /**
   * The POST's valid messages, before the SDK's transport handles them: each response or
   * cancellation goes to the request it concerns; then each request's cancellation is expected.
   */
  async receive(messages: readonly Message[]): Promise<void> {
    for (const message of messages) {
      const address = addressOf(message);
      if (address !== undefined) await this.relay.route(this.sessionId, { address, message });
    }
    const cancellations = messages.filter(isRequest).map((m) => cancelAddress(m.id));
    if (cancellations.length === 0) return;
    for (const address of cancellations) this.unanswered.add(address);
    await this.relay.expect(this.sessionId, cancellations, this.cancel);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Message;
    if (this.replayed && isResponse(m) && m.id === REPLAYED_INITIALIZE) {
      this.replayed();
      this.replayed = undefined;
      return;
    }
    let out = message;
    if (isRequest(m)) out = await this.sending(m);
    else if (isResponse(m)) out = await this.answering(m);
    else {
      // The server cancels a request of its own (it timed out, or the call it serves was cancelled):
      // the client knows it by its wire id, and its answer is no longer expected.
      const cancelled = cancelledId(m);
      const address = [...this.awaiting].find(([, id]) => id === cancelled)?.[0];
      if (address !== undefined) {
        this.awaiting.delete(address);
        void this.relay.forget(this.sessionId, [address], this.answer);
        const requestId = address.slice('response:'.length);
        out = { ...m, params: { ...(m.params as object), requestId } } as unknown as JSONRPCMessage;
      }
    }
    await this.inner.send(out, options);
    if (isResponse(m) && this.someCancelled && this.unanswered.size === 0) await this.inner.close();
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private async sending(request: Message): Promise<JSONRPCMessage> {
    const wireId = randomUUID();
    const address = `response:${wireId}`;
    this.awaiting.set(address, request.id as RequestId);
    try {
      await this.relay.expect(this.sessionId, [address], this.answer);
    } catch (err) {
      this.awaiting.delete(address);
      throw err;
    }
    if (this.ended) {
      // The response ended meanwhile: nothing can carry the request, nor its answer back.
      await this.relay.forget(this.sessionId, [address], this.answer);
      throw new Error('the request this one belongs to has ended');
    }
    return { ...request, id: wireId } as JSONRPCMessage;
  }

  /** A client request is answered: its cancellation is no longer expected; an initialize's success opens the session first. */
  private async answering(response: Message): Promise<JSONRPCMessage> {
    const open = this.open;
    this.open = undefined;
    if (open && 'result' in response) {
      try {
        await open();
      } catch {
        return { jsonrpc: '2.0', id: response.id as RequestId, error: { code: -32603, message: 'Internal error' } };
      }
    }
    const address = cancelAddress(response.id);
    if (this.unanswered.delete(address)) await this.relay.forget(this.sessionId, [address], this.cancel);
    return response as unknown as JSONRPCMessage;
  }

  /** The client's answer to a request of the server, back under the server's id. */
  private readonly answer: Deliver = (address, message) => {
    const id = this.awaiting.get(address);
    if (id === undefined) return;
    this.awaiting.delete(address);
    this.onmessage?.({ ...(message as Message), id } as JSONRPCMessage);
  };

  /** The client cancelled a request of the POST: the server stops it, and answers it no more. */
  private readonly cancel: Deliver = (address, message) => {
    if (!this.unanswered.delete(address)) return;
    this.someCancelled = true;
    this.onmessage?.(message as JSONRPCMessage);
    // The server takes the cancellation in a microtask and at once sends what it sends for it (it
    // withdraws its question to the client); after that, with nothing left to answer, the response ends.
    if (this.unanswered.size === 0) setImmediate(() => void this.inner.close());
  };

  private closed(): void {
    this.ended = true;
    void this.relay.forget(this.sessionId, [...this.awaiting.keys()], this.answer);
    void this.relay.forget(this.sessionId, [...this.unanswered], this.cancel);
    this.awaiting.clear();
    this.unanswered.clear();
    this.onclose?.();
  }
}
