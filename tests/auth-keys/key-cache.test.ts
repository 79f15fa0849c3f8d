// Active API keys are kept in memory (src/auth/key-cache.ts) only while the server hears every
// revocation (LISTEN gm_api_key_revoked): these tests show that the memory is used, that a
// revocation from elsewhere reaches it, and that losing the notifications loses the memory.
import { describe, expect, it, vi } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { apiKeys } from '../../db/schema.ts';
import { revokeUserApiKey } from '../../src/services/api-keys.ts';
import { ApiKeyCache } from '../../src/auth/key-cache.ts';
import { sha256 } from '../../src/auth/secrets.ts';
import { userActor } from '../../src/actor.ts';

const onServer = Boolean(process.env.DATABASE_URL);
const server = testFileServer();

const verifyStatus = async (key: string) => (await server.client(key).GET('/api/keys/verify')).response.status;

/** Revokes the row behind the cache's back: no notification, as if it had been lost. */
const revokeSilently = (id: string) => server.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, id));

async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the API-key cache', () => {
  it('is live once the server listens, and answers a used key from memory', async () => {
    expect(server.runtime.apiKeys.live).toBe(true);
    const agent = await server.user('Cached');
    expect(await verifyStatus(agent.apiKey)).toBe(200);
    await revokeSilently(agent.apiKeyId);
    // Only memory can still say yes: the row is revoked and nobody announced it.
    expect(await verifyStatus(agent.apiKey)).toBe(200);
  });

  it('forgets a key that another connection revokes, when the notification arrives', async () => {
    const agent = await server.user('Revoked elsewhere');
    expect(await verifyStatus(agent.apiKey)).toBe(200);
    // Another process on a server database (as the operator CLI would be); on PGlite the same
    // database, revoking without telling this server's cache: only the notification can.
    const other: Database | undefined = onServer ? await openDatabase({ databaseUrl: server.config.databaseUrl, max: 1 }) : undefined;
    try {
      await revokeUserApiKey({ db: other?.db ?? server.db }, userActor(agent.userId), agent.apiKeyId);
    } finally {
      await other?.close();
    }
    await eventually(async () => (await verifyStatus(agent.apiKey)) === 401, 'the revoked key is refused');
  });

  it.runIf(onServer)('drops what it holds when the notification connection is lost, and listens again', async () => {
    const cache = server.runtime.apiKeys;
    const agent = await server.user('Listener lost');
    expect(await verifyStatus(agent.apiKey)).toBe(200);
    await revokeSilently(agent.apiKeyId);
    expect(await verifyStatus(agent.apiKey)).toBe(200); // from memory

    const killed = (await server.db.execute(sql`select pg_terminate_backend(pid) as ok from pg_stat_activity
      where application_name = 'gigmarket-listen' and datname = current_database()`)) as unknown as { ok: boolean }[];
    expect(killed).toHaveLength(1);
    // Whatever it held may have missed a revocation: the key is read from the database again.
    await eventually(async () => (await verifyStatus(agent.apiKey)) === 401, 'the silently revoked key is refused');
    await eventually(() => cache.live, 'listening again');
    expect(await verifyStatus(agent.apiKey)).toBe(401); // nothing from before the loss came back

    // Live again: a revocation from another connection reaches it.
    const next = await server.user('After reconnect');
    expect(await verifyStatus(next.apiKey)).toBe(200);
    expect(cache.size).toBeGreaterThan(0);
    const other = await openDatabase({ databaseUrl: server.config.databaseUrl, max: 1 });
    try {
      await revokeUserApiKey({ db: other.db }, userActor(next.userId), next.apiKeyId);
    } finally {
      await other.close();
    }
    await eventually(async () => (await verifyStatus(next.apiKey)) === 401, 'the revoked key is refused after reconnecting');
  });

  it('does not store a row read before a revocation it heard of meanwhile', async () => {
    const agent = await server.user('Raced');
    const cache = new ApiKeyCache();
    cache.setLive(true);
    const reading = cache.findActive(server.db, sha256(agent.apiKey));
    cache.forget(agent.apiKeyId); // the notification lands while the row is on its way
    expect((await reading)?.id).toBe(agent.apiKeyId);
    expect(cache.size).toBe(0);
  });

  it('keeps nothing when not live, and nothing past its time to live', async () => {
    const agent = await server.user('Short lived');
    const hash = sha256(agent.apiKey);
    const cold = new ApiKeyCache();
    expect((await cold.findActive(server.db, hash))?.id).toBe(agent.apiKeyId);
    expect(cold.size).toBe(0);

    // The cache's clock, stopped and moved by hand: on a loaded machine the revocation alone
    // could outlast a real 30 ms.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const brief = new ApiKeyCache({ ttlMs: 30 });
      brief.setLive(true);
      expect((await brief.findActive(server.db, hash))?.id).toBe(agent.apiKeyId);
      expect(brief.size).toBe(1);
      await revokeSilently(agent.apiKeyId);
      vi.setSystemTime(Date.now() + 29);
      expect((await brief.findActive(server.db, hash))?.id).toBe(agent.apiKeyId); // within its time
      vi.setSystemTime(Date.now() + 1);
      expect(await brief.findActive(server.db, hash)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('still records last use, to the minute, for a key answered from memory', async () => {
    const agent = await server.user('Last used');
    const lastUsed = async () => (await server.db.select().from(apiKeys).where(eq(apiKeys.id, agent.apiKeyId)))[0]!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    expect(await verifyStatus(agent.apiKey)).toBe(200);
    await eventually(async () => (await lastUsed()) !== null, 'last_used_at written');
    const first = await lastUsed();
    expect(await verifyStatus(agent.apiKey)).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(await lastUsed()).toEqual(first); // not rewritten within the minute
  });
});
