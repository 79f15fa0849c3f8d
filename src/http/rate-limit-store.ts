// The counters behind the rate limits (src/http/rate-limit.ts): one fixed window per key, which
// starts with the first unit taken and lasts the configured window. In this process's memory by
// default; in Redis when REDIS_URL is set, so that every server process counts in the same place.
//
// One operation does the work of a request: `take` spends `cost` units only if all of them fit
// under `max`, and says what is left either way. A request that cannot fit spends nothing (it
// leaves what remains to cheaper ones), and in Redis the check and the spend are one script, so
// two servers cannot both spend the last unit. `cost` 0 reads without spending.
//
// These replace @fastify/rate-limit, whose limiter took a key generator, a max function and a
// promise per call and counted a request of cost N as N increments: the two limiter calls of an
// authenticated request allocated a large share of everything the request allocated (bench:pipeline).
import type { Redis } from 'ioredis';

export interface Count {
  /** Whether the units were taken (always false for a read, cost 0). */
  taken: boolean;
  /** Units left in the window after this call. */
  remaining: number;
  /** Milliseconds until the window ends (the whole window when none has started). */
  resetMs: number;
}

export interface CounterStore {
  /** Takes `cost` units of `key`'s window if all fit under `max`; cost 0 only reads. */
  take(key: string, cost: number, max: number): Count | Promise<Count>;
  close(): Promise<void>;
}

interface Window {
  used: number;
  endsAt: number;
}

/** At most this many windows are kept; past it the oldest go first (an address spraying IPv6 /64s cannot grow the map without end). */
const MEMORY_CAP = 10_000;

/** Counters in this process. Synchronous: an in-memory request spends no promise on its limit. */
export class MemoryCounters implements CounterStore {
  readonly #windows = new Map<string, Window>();
  readonly #windowMs: number;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  take(key: string, cost: number, max: number): Count {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (window && window.endsAt <= now) {
      // Re-inserted below so the map's order stays the order windows started in.
      this.#windows.delete(key);
      window = undefined;
    }
    if (!window) {
      if (cost === 0 || cost > max) return { taken: false, remaining: max, resetMs: this.#windowMs };
      if (this.#windows.size >= MEMORY_CAP) this.#evictOldest(now);
      window = { used: 0, endsAt: now + this.#windowMs };
      this.#windows.set(key, window);
    }
    const taken = cost > 0 && window.used + cost <= max;
    if (taken) window.used += cost;
    return { taken, remaining: Math.max(0, max - window.used), resetMs: window.endsAt - now };
  }

  /** Drops the windows that have ended, or else the oldest one. */
  #evictOldest(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    if (this.#windows.size >= MEMORY_CAP) this.#windows.delete(this.#windows.keys().next().value!);
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }
}

// KEYS[1] the counter; ARGV cost, max, window in ms. Returns {taken (0/1), used, ms left}.
const TAKE_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local cost, max, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if ttl < 0 then used = 0; ttl = window end
if cost > 0 and used + cost <= max then
  if used == 0 then redis.call('SET', KEYS[1], cost, 'PX', window) else redis.call('INCRBY', KEYS[1], cost) end
  return {1, used + cost, ttl}
end
return {0, used, ttl}
`;

type WithTake = Redis & { gigmarketTake(key: string, cost: number, max: number, windowMs: number): Promise<[number, number, number]> };

/** Counters in Redis, under `prefix` + key, expiring with their window. */
export class RedisCounters implements CounterStore {
  readonly #redis: WithTake;
  readonly #prefix: string;
  readonly #windowMs: number;

  constructor(redis: Redis, prefix: string, windowMs: number) {
    redis.defineCommand('gigmarketTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.#redis = redis as WithTake;
    this.#prefix = prefix;
    this.#windowMs = windowMs;
  }

  async take(key: string, cost: number, max: number): Promise<Count> {
    const [taken, used, ttl] = await this.#redis.gigmarketTake(this.#prefix + key, cost, max, this.#windowMs);
    return { taken: taken === 1, remaining: Math.max(0, max - used), resetMs: ttl };
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/**
 * A Redis connection for the counters, connected before the server starts (a wrong REDIS_URL
 * stops it); afterwards, commands fail at once while the connection is down (no offline queue),
 * and the limits let those requests through. ioredis loads only when REDIS_URL is set.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 1,
  });
  let lastError: Error | undefined;
  // It reconnects on its own; the commands that fail meanwhile are logged per request.
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to ${redactedUrl(url)}: ${(lastError ?? (err as Error)).message}`);
  }
  return redis;
}

function redactedUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  return url.toString();
}
