// MCP sessions kept outside any one process, so that every server process behind a plain
// balancer serves every session (http.ts). The store is handed in (src/services/mcp-sessions.ts:
// Postgres tables, and a channel every process hears); here, what /mcp asks of it, and the relay
// that carries a client's message to the process serving the request it answers.
import type { Principal } from '../auth/authenticate.ts';

/** A session unused this long has expired. */
export const IDLE_MINUTES = 30;
/** The most live sessions an owner has, across all their credentials; beyond it the least recently used ends. */
export const SESSIONS_PER_OWNER = 16;
/** How long a client's message waits for the process it is addressed to (longer than the owner's time to answer). */
export const MESSAGE_KEEP_MINUTES = 60;

/** The credential a session belongs to: another credential of the same owner gets 404 for it. */
export interface SessionOwner {
  userId: string;
  kind: 'api_key' | 'oauth';
  /** The API key's id, or the OAuth grant's. */
  id: string;
}

/** What a later request of the session needs: the client's `initialize` params. */
export interface StoredSession {
  id: string;
  initialize: Record<string, unknown>;
}

/** A client's message addressed to a request in flight, with its address (see session-transport.ts). */
export interface Addressed {
  address: string;
  message: unknown;
}

export interface McpSessionStore {
  /** A new session; beyond SESSIONS_PER_OWNER, the owner's least recently used ones end. Returns its id. */
  open(owner: SessionOwner, initialize: Record<string, unknown>): Promise<string>;
  /** The session, if live and opened by this credential, marked as used now. */
  resume(id: string, owner: SessionOwner): Promise<StoredSession | undefined>;
  close(id: string): Promise<void>;
  /** Keeps a message for the process serving its addressee, and tells every process. */
  post(sessionId: string, message: Addressed): Promise<void>;
  /** Removes and returns the messages kept for these addresses. */
  take(sessionId: string, addresses: string[]): Promise<Addressed[]>;
  /** Hears every `post`, from any process; `onLive(true)` again after a gap in which some may have been missed. */
  listen(handlers: { onPosted(sessionId: string): void; onLive(live: boolean): void }): Promise<{ stop(): Promise<void> }>;
}

/**
 * Whose session a request may use. API keys today; an OAuth principal maps to its grant the same
 * way. Anything else (a browser session) has no MCP session.
 */
export function sessionOwnerOf(principal: Principal): SessionOwner | undefined {
  if (principal.kind === 'api_key') return { userId: principal.userId, kind: 'api_key', id: principal.apiKeyId };
  return undefined;
}

type Deliver = (message: unknown) => void;

/**
 * Hands a client's message to the request it is addressed to, wherever that request is served: in
 * this process directly, else through the store to the process that expects it, which hears of it
 * on the store's channel (or, after a gap in hearing, looks) and takes it.
 */
export class Relay {
  private readonly expected = new Map<string, Map<string, Deliver>>();
  private listening: Promise<{ stop(): Promise<void> }> | undefined;
  private readonly store: McpSessionStore;
  private readonly onError: (err: unknown) => void;

  constructor(store: McpSessionStore, onError: (err: unknown) => void) {
    this.store = store;
    this.onError = onError;
  }

  /** Expects the message for `address` of the session; the function returned stops expecting it. */
  async expect(sessionId: string, address: string, deliver: Deliver): Promise<() => void> {
    // Heard from before the request that is answered goes out: no answer can come first.
    this.listening ??= this.store
      .listen({
        onPosted: (id) => void this.collect(id),
        onLive: (live) => {
          if (live) for (const id of this.expected.keys()) void this.collect(id);
        },
      })
      .catch((err) => {
        this.listening = undefined; // the next request that waits tries again
        throw err;
      });
    await this.listening;
    let mine = this.expected.get(sessionId);
    if (!mine) this.expected.set(sessionId, (mine = new Map()));
    mine.set(address, deliver);
    return () => this.forget(sessionId, address, deliver);
  }

  async route(sessionId: string, addressed: Addressed): Promise<void> {
    const deliver = this.expected.get(sessionId)?.get(addressed.address);
    if (!deliver) return this.store.post(sessionId, addressed);
    this.forget(sessionId, addressed.address, deliver);
    deliver(addressed.message);
  }

  async stop(): Promise<void> {
    const listening = this.listening;
    this.listening = undefined;
    await (await listening?.catch(() => undefined))?.stop();
  }

  private async collect(sessionId: string): Promise<void> {
    const mine = this.expected.get(sessionId);
    if (!mine?.size) return;
    try {
      for (const { address, message } of await this.store.take(sessionId, [...mine.keys()])) {
        const deliver = mine.get(address);
        if (!deliver) continue; // no longer expected: the request ended meanwhile
        this.forget(sessionId, address, deliver);
        deliver(message);
      }
    } catch (err) {
      this.onError(err);
    }
  }

  private forget(sessionId: string, address: string, deliver: Deliver): void {
    const mine = this.expected.get(sessionId);
    if (mine?.get(address) !== deliver) return;
    mine.delete(address);
    if (mine.size === 0) this.expected.delete(sessionId);
  }
}
