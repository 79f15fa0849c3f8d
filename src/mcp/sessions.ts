// MCP sessions kept outside any one process, so that every server process behind a plain
// balancer serves every session (http.ts). The store is handed in (src/services/mcp-sessions.ts:
// Postgres tables, and a channel every process hears); here, what /mcp asks of it, and the relay
// that carries a client's message to the process waiting for it.
import type { Principal } from '../auth/authenticate.ts';

/** A session unused this long has expired. */
export const IDLE_MINUTES = 30;
/** The most live sessions an owner has, across all their API keys; beyond it the least recently used ends. */
export const SESSIONS_PER_OWNER = 16;
/** Longer than any wait (the owner's time to answer): an address still registered after this, its process ended mid-wait. */
export const MESSAGE_KEEP_MINUTES = 60;

/**
 * The API key a session belongs to: another key of the same owner gets 404 for it. An OAuth
 * token acts through its grant's own API key, so the sessions it opens are that key's.
 */
export interface SessionOwner {
  userId: string;
  kind: 'api_key';
  /** The API key's id. */
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
  /** A new session under this id; beyond SESSIONS_PER_OWNER, the owner's least recently used ones end. */
  open(id: string, owner: SessionOwner, initialize: Record<string, unknown>): Promise<void>;
  /** The session, if live and opened by this key, marked as used now. */
  resume(id: string, owner: SessionOwner): Promise<StoredSession | undefined>;
  close(id: string): Promise<void>;
  /** Registers addresses at which this process waits, so that a message for one reaching another process is kept. */
  expect(sessionId: string, addresses: string[]): Promise<void>;
  /** Keeps a message for the process waiting at its address, and tells every process; dropped if none waits. */
  post(sessionId: string, message: Addressed): Promise<void>;
  /** Removes and returns the messages that came for these addresses. */
  take(sessionId: string, addresses: string[]): Promise<Addressed[]>;
  /** Ends the wait at these addresses. */
  forget(sessionId: string, addresses: string[]): Promise<void>;
  /** Hears every `post` kept, from any process; `onLive(true)` again after a gap in which some may have been missed. */
  listen(handlers: { onPosted(sessionId: string): void; onLive(live: boolean): void }): Promise<{ stop(): Promise<void> }>;
}

/**
 * Whose session a request may use: its API key's, which for an OAuth token is its grant's own key
 * (src/auth/authenticate.ts). A browser session has no MCP session.
 */
export function sessionOwnerOf(principal: Principal): SessionOwner | undefined {
  if (principal.kind === 'api_key') return { userId: principal.userId, kind: 'api_key', id: principal.apiKeyId };
  return undefined;
}

/** Hands the message that came for `address` to whoever waits there. */
export type Deliver = (address: string, message: unknown) => void;

interface Waiting {
  deliver: Deliver;
  /** Settles once the store has the address. */
  registered: Promise<unknown>;
}

/**
 * Hands a client's message to the request waiting for it, wherever that request is served: in
 * this process directly, else through the store to the process that registered the address, which
 * hears of it on the store's channel (or, after a gap in hearing, looks) and takes it. Each
 * message is delivered once at most: the first to come for an address, while someone waits there.
 */
export class Relay {
  private readonly expected = new Map<string, Map<string, Waiting>>();
  private listening: Promise<{ stop(): Promise<void> }> | undefined;
  private readonly forgetting = new Set<Promise<void>>();
  private readonly store: McpSessionStore;
  private readonly onError: (err: unknown) => void;

  constructor(store: McpSessionStore, onError: (err: unknown) => void) {
    this.store = store;
    this.onError = onError;
  }

  /** Waits at these addresses of the session; until `forget`, `deliver` gets what comes for each, once. */
  async expect(sessionId: string, addresses: string[], deliver: Deliver): Promise<void> {
    // Heard from and registered before the request that is answered goes out: no answer can come first.
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
    // Expected here before the store has it: a message posted at another process as soon as it
    // does is then taken when this process hears of it.
    const registered = this.store.expect(sessionId, addresses);
    let mine = this.expected.get(sessionId);
    if (!mine) this.expected.set(sessionId, (mine = new Map()));
    const waiting = { deliver, registered: registered.catch(() => {}) };
    for (const address of addresses) mine.set(address, waiting);
    try {
      await registered;
    } catch (err) {
      for (const address of addresses) this.drop(sessionId, address, deliver);
      throw err;
    }
  }

  /** Stops waiting at these addresses (those `deliver` still waits at); settles once the store forgot them too, never rejects. */
  forget(sessionId: string, addresses: string[], deliver: Deliver): Promise<void> {
    const dropped = addresses.flatMap((address) => {
      const waiting = this.drop(sessionId, address, deliver);
      return waiting ? [{ address, registered: waiting.registered }] : [];
    });
    if (dropped.length === 0) return Promise.resolve();
    // Once the store has them (a message delivered here may come first): forgotten before, they would stay.
    const forgotten = Promise.all(dropped.map((d) => d.registered))
      .then(() =>
        this.store.forget(
          sessionId,
          dropped.map((d) => d.address),
        ),
      )
      .catch(this.onError);
    this.forgetting.add(forgotten);
    void forgotten.finally(() => this.forgetting.delete(forgotten));
    return forgotten;
  }

  async route(sessionId: string, addressed: Addressed): Promise<void> {
    const waiting = this.expected.get(sessionId)?.get(addressed.address);
    if (!waiting) return this.store.post(sessionId, addressed);
    const forgotten = this.forget(sessionId, [addressed.address], waiting.deliver);
    waiting.deliver(addressed.address, addressed.message);
    await forgotten;
  }

  async stop(): Promise<void> {
    await Promise.all(this.forgetting);
    const listening = this.listening;
    this.listening = undefined;
    await (await listening?.catch(() => undefined))?.stop();
  }

  private async collect(sessionId: string): Promise<void> {
    const mine = this.expected.get(sessionId);
    if (!mine?.size) return;
    try {
      for (const { address, message } of await this.store.take(sessionId, [...mine.keys()])) {
        const waiting = this.expected.get(sessionId)?.get(address);
        // Taken, the store has forgotten the address; no longer expected here, the request ended meanwhile.
        if (waiting && this.drop(sessionId, address, waiting.deliver)) waiting.deliver(address, message);
      }
    } catch (err) {
      this.onError(err);
    }
  }

  /** Forgets `address` here if `deliver` waits there: what waited there, if anything. */
  private drop(sessionId: string, address: string, deliver: Deliver): Waiting | undefined {
    const mine = this.expected.get(sessionId);
    const waiting = mine?.get(address);
    if (!mine || waiting?.deliver !== deliver) return undefined;
    mine.delete(address);
    if (mine.size === 0) this.expected.delete(sessionId);
    return waiting;
  }
}
