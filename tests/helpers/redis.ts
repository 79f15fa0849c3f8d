// The Redis the tests of shared counters use: REDIS_TEST_URL (.ci/run exports it), else one on
// 127.0.0.1:6379 if it answers. Without one these tests skip, but under CI=true they run and fail.
import { redisAnswers } from '../../scripts/cluster/redis-probe.ts';

export const redisUrl = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379';

export const redisReachable = await redisAnswers(redisUrl);

/** Whether to run a Redis test: when one answers, and always under CI (where it must). */
export const runWithRedis = redisReachable || Boolean(process.env.CI);

/** A describe title that says why it skipped, when it does. */
export const redisTitle = (title: string) =>
  runWithRedis ? title : `${title} (skipped: no Redis answers at ${redisUrl}; set REDIS_TEST_URL; under CI=true this fails instead)`;
