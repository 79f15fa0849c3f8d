// Every authenticated request looks up its API key; this cache answers it from memory, but only
// while this process hears every revocation (LISTEN on the channel revokeApiKey notifies). Not
// hearing it (connection lost, not started, the CLI) means no cache: each lookup reads the database.
// A revocation reaches other instances when its notification does (milliseconds after commit);
// the instance that revoked forgets the key before it answers.
import type { Database, Db } from '../../db/client.ts';
import { listen, type Listener } from '../../db/listen.ts';
import { API_KEY_REVOKED_CHANNEL, findActiveKeyByHash, type ApiKeyRow } from '../../db/repositories/api-keys.ts';

export interface ApiKeyCacheOptions {
  /** How long an entry is trusted even without a notification (a bound, not the mechanism). */
  ttlMs?: number;
  maxEntries?: number;
}

export class ApiKeyCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  /** Active keys by the hash of their secret. Unknown or revoked keys are never cached. */
  readonly #entries = new Map<string, { row: ApiKeyRow; storedAt: number }>();
  /** Bumped by every forget: a lookup that started before one may not store what it read. */
  #generation = 0;
  #live = false;

  constructor(options: ApiKeyCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** Whether revocations are being heard, so that entries may be used. */
  get live(): boolean {
    return this.#live;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The active key with this hash: from memory while live, else from the database. */
  async findActive(db: Db, hash: string): Promise<ApiKeyRow | undefined> {
    if (this.#live) {
      const hit = this.#entries.get(hash);
      if (hit && Date.now() - hit.storedAt < this.#ttlMs) return hit.row;
      if (hit) this.#entries.delete(hash);
    }
    const generation = this.#generation;
    const row = await findActiveKeyByHash(db, hash);
    if (row && this.#live && generation === this.#generation) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(hash, { row, storedAt: Date.now() });
    }
    return row;
  }

  /**
   * Whether the key with this hash is active as far as memory knows, without reading the database:
   * false when it is not cached, stale, or revocations are not being heard.
   */
  knowsActive(hash: string): boolean {
    if (!this.#live) return false;
    const hit = this.#entries.get(hash);
    return hit !== undefined && Date.now() - hit.storedAt < this.#ttlMs;
  }

  /** The key was revoked (or changed): drop it, and anything read before now that could hold it. */
  forget(keyId: string): void {
    this.#generation++;
    for (const [hash, entry] of this.#entries) if (entry.row.id === keyId) this.#entries.delete(hash);
  }

  /** Notes a use written to the database, so the cached row does not ask to write it again. */
  touched(keyId: string, at: Date): void {
    for (const entry of this.#entries.values()) if (entry.row.id === keyId) entry.row = { ...entry.row, lastUsedAt: at };
  }

  /** Hearing revocations or not: either way a change empties the cache (what was missed is unknown). */
  setLive(live: boolean): void {
    if (live === this.#live) return;
    this.#live = live;
    this.#generation++;
    this.#entries.clear();
  }

  /** Subscribes to revocations on this database; the cache is live while the subscription is. */
  async listen(database: Database): Promise<Listener> {
    return listen(database, API_KEY_REVOKED_CHANNEL, {
      onNotify: (keyId) => this.forget(keyId),
      onLive: (live) => this.setLive(live),
    });
  }
}
