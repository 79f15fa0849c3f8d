// The rate limits' counters (src/http/rate-limit-store.ts), in memory and in Redis, held to one
// contract: a take spends all of its cost or nothing, a read spends nothing, a window ends and
// the next starts from zero, and takes racing for the last units spend them exactly once.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOf } from '../../src/http/rate-limit.ts';
import { connectRedis, MemoryCounters, RedisCounters, type CounterStore } from '../../src/http/rate-limit-store.ts';
import { redisReachable, redisTitle, redisUrl, runWithRedis } from '../helpers/redis.ts';

const WINDOW_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function contract(open: () => Promise<CounterStore>) {
  let store: CounterStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });
  let next = 0;
  const freshKey = () => `test:${next++}`;

  it('takes units while they fit, then refuses without spending; a refused cost leaves what is left', async () => {
    const key = freshKey();
    expect(await store.take(key, 1, 3)).toMatchObject({ taken: true, remaining: 2 });
    expect(await store.take(key, 5, 3)).toMatchObject({ taken: false, remaining: 2 });
    expect(await store.take(key, 2, 3)).toMatchObject({ taken: true, remaining: 0 });
    const over = await store.take(key, 1, 3);
    expect(over).toMatchObject({ taken: false, remaining: 0 });
    expect(over.resetMs).toBeGreaterThan(0);
    expect(over.resetMs).toBeLessThanOrEqual(WINDOW_MS);
  });

  it('reads without spending (cost 0), and a read starts no window', async () => {
    const key = freshKey();
    expect(await store.take(key, 0, 3)).toEqual({ taken: false, remaining: 3, resetMs: WINDOW_MS });
    expect(await store.take(key, 1, 3)).toMatchObject({ taken: true, remaining: 2 });
    expect(await store.take(key, 0, 3)).toMatchObject({ taken: false, remaining: 2 });
    expect(await store.take(key, 0, 3)).toMatchObject({ remaining: 2 });
  });

  it('never spends a cost larger than the whole budget', async () => {
    const key = freshKey();
    expect(await store.take(key, 4, 3)).toMatchObject({ taken: false, remaining: 3 });
    expect(await store.take(key, 3, 3)).toMatchObject({ taken: true, remaining: 0 });
  });

  it('counts from zero once the window has ended', async () => {
    const key = freshKey();
    expect(await store.take(key, 3, 3)).toMatchObject({ taken: true, remaining: 0 });
    await sleep(WINDOW_MS + 50);
    const again = await store.take(key, 1, 3);
    expect(again).toMatchObject({ taken: true, remaining: 2 });
    expect(again.resetMs).toBeGreaterThan(WINDOW_MS - 200);
  });

  it('spends the last units once when takes race for them', async () => {
    const key = freshKey();
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => store.take(key, 2, 10)));
    expect(outcomes.filter((o) => o.taken)).toHaveLength(5);
    expect(await store.take(key, 0, 10)).toMatchObject({ remaining: 0 });
  });
}

describe('MemoryCounters', () => {
  contract(async () => new MemoryCounters(WINDOW_MS));

  it('keeps at most 10,000 windows, dropping the oldest first', () => {
    const store = new MemoryCounters(60_000);
    store.take('first', 1, 5);
    for (let i = 0; i < 10_000; i++) store.take(`filler:${i}`, 1, 5);
    // 'first' was dropped to make room: its budget is whole again.
    expect(store.take('first', 0, 5)).toMatchObject({ remaining: 5 });
    expect(store.take('filler:9999', 0, 5)).toMatchObject({ remaining: 4 });
  });
});

describe.skipIf(!runWithRedis)(redisTitle('RedisCounters'), () => {
  const prefix = `gigmarket-test:${randomBytes(6).toString('hex')}:`;
  contract(async () => {
    expect(redisReachable, `no Redis answers at ${redisUrl} (set REDIS_TEST_URL)`).toBe(true);
    return new RedisCounters(await connectRedis(redisUrl), prefix, WINDOW_MS);
  });

  it('keeps each counter under the prefix, expiring with its window', async () => {
    const store = new RedisCounters(await connectRedis(redisUrl), prefix, 60_000);
    const redis = new Redis(redisUrl);
    try {
      await store.take('kept', 2, 5);
      expect(await redis.get(`${prefix}kept`)).toBe('2');
      const ttl = await redis.pttl(`${prefix}kept`);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await store.close();
    }
  });
});

describe('addressOf', () => {
  it('keeps IPv4, groups IPv6 by /64 and reads an IPv4-mapped address as IPv4', () => {
    expect(addressOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressOf('2001:DB8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressOf('not:an:address')).toBe('not:an:address');
  });
});
