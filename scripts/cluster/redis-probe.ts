// Whether a Redis answers, asked once and briefly: the cluster check's and the tests' (tests/helpers/redis.ts).
import { Redis } from 'ioredis';

/** Whether a Redis answers PING at this URL within a second. */
export async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
