// Rate limits (OWASP API4), counted by @fastify/rate-limit's store: in memory, or in Redis when
// REDIS_URL is set so that every server process shares the counters. Two budgets per window:
//
// - per credential (an API key id, or a browser session id): RATE_LIMIT_PER_MINUTE units;
// - per client address (request.ip, as TRUST_PROXY decides it; IPv6 by /64):
//   RATE_LIMIT_ANONYMOUS_PER_MINUTE units, spent by unauthenticated requests and by requests that
//   authentication refuses.
//
// Order, inside the API's one onRequest hook that authenticates (aroundAuthentication), before
// the body is even read:
//   1. public operation (security: []): take its cost from the address budget, 429 when spent;
//   2. otherwise, read the address budget without spending it: an address with nothing left is
//      refused here (429), before authentication could read the database;
//   3. authenticate; when that refuses (401, or 403 for a credential this operation does not
//      take), take 1 from the address budget and answer the refusal;
//   4. take the operation's cost from the credential's budget, 429 when spent (from the address's
//      when credentials are optional and none came: security `{}`, the resume download).
// Routes outside the API (browser pages, /docs) spend 1 from the address budget in a root
// onRequest hook (outsideApi), but for the dashboard's static files (rateLimitCost 0); unknown
// paths are answered 404 without it, having cost nothing. An operation whose cost is 0 (GET /api/health, polled
// by load balancers) is not limited at all.
//
// Cost: an operation's `x-rate-limit-cost` in openapi.yaml (default 1), put in the route config
// when the routes are registered. The store counts one per increment, so a request of cost N
// increments its bucket N times (in one Redis round trip, ioredis pipelining the calls made in
// the same tick) and is refused unless all N fit; a read first refuses one that cannot fit
// without spending what is left. So heavy operations draw on the same budget, faster, and the
// RateLimit headers describe one policy per caller rather than one per cost class.
//
// Headers (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy: "credential";q=600;w=60`
// and `RateLimit: "credential";r=595;t=42` (the policy is "address" for anonymous and failed
// requests); a 429 adds `Retry-After` in seconds. The plugin's own headers (RateLimit-Limit,
// -Remaining, -Reset: draft 06 and earlier) are not used.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimitPlugin, { normalizeIP } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';

type Policy = 'credential' | 'address';

interface Bucket {
  policy: Policy;
  /** The counter's key: `address:<ip>`, `api_key:<id>` or `session:<id>`. */
  key: string;
  max: number;
  /** Who is over the limit, for the message. */
  who: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The bucket the store's next increment counts in (the plugin's keyGenerator and max read it). */
    rateLimitBucket?: Bucket;
  }
  interface FastifyContextConfig {
    /** From the spec's `x-rate-limit-cost`: units one request of this operation takes (0: not limited). */
    rateLimitCost?: number;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface RateLimits {
  /** Wraps the API's authentication hook with the steps above. */
  aroundAuthentication(authenticate: Hook): Hook;
  /** A root onRequest hook: routes outside the API spend 1 from their address's budget (synchronous for the others). */
  outsideApi(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void;
}

const MAX_COST = 100;

/** An operation's `x-rate-limit-cost`: a whole number from 0 to 100, default 1; anything else stops the server. */
export function rateLimitCost(operationId: string, operation: Record<string, unknown>): number {
  const cost = operation['x-rate-limit-cost'] ?? 1;
  if (!Number.isInteger(cost) || (cost as number) < 0 || (cost as number) > MAX_COST) {
    throw new Error(`x-rate-limit-cost of ${operationId} must be a whole number from 0 to ${MAX_COST}, got ${JSON.stringify(cost)}`);
  }
  return cost as number;
}

/** Registers @fastify/rate-limit (no route of its own: global false) and returns the hooks. */
export async function registerRateLimits(app: FastifyInstance, config: Config): Promise<RateLimits> {
  const settings = config.rateLimit;
  if (!settings) return { aroundAuthentication: (authenticate) => authenticate, outsideApi: (_request, _reply, done) => done() };

  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  if (redis)
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  await app.register(rateLimitPlugin, {
    global: false,
    timeWindow: settings.windowMs,
    keyGenerator: (request) => request.rateLimitBucket!.key,
    max: (request) => request.rateLimitBucket!.max,
    // A store that fails is logged and the request let through (see spend), never a 500.
    skipOnError: false,
    cache: 10_000,
    ...(redis ? { redis, nameSpace: settings.keyPrefix } : {}),
  });
  const limiter = app.createRateLimit();
  const windowSeconds = Math.ceil(settings.windowMs / 1000);

  const addressBucket = (request: FastifyRequest): Bucket => {
    const ip = normalizeIP(request.ip);
    return { policy: 'address', key: `address:${ip}`, max: settings.anonymous, who: `address ${ip}` };
  };

  function announce(reply: FastifyReply, bucket: Bucket, remaining: number, resetSeconds: number): void {
    reply.header('ratelimit-policy', `"${bucket.policy}";q=${bucket.max};w=${windowSeconds}`);
    reply.header('ratelimit', `"${bucket.policy}";r=${remaining};t=${resetSeconds}`);
  }

  function refuse(reply: FastifyReply, bucket: Bucket, resetSeconds: number, cost: number, remaining = 0): never {
    const retryAfter = Math.max(1, resetSeconds);
    reply.header('retry-after', String(retryAfter));
    const what = bucket.policy === 'address' ? ' for requests without accepted credentials' : '';
    const state =
      remaining > 0
        ? `only ${remaining} of its ${bucket.max} units per ${windowSeconds} s${what} are left and this operation costs ${cost}`
        : `its ${bucket.max} units per ${windowSeconds} s${what} are spent${cost > 1 ? ` (this operation costs ${cost})` : ''}`;
    throw new ApiError('RATE_LIMITED', `rate limit exceeded for ${bucket.who}: ${state}; retry after ${retryAfter} s`);
  }

  /**
   * Takes `cost` units from the bucket and announces what is left; throws 429 unless all of them
   * fitted (when `refuseWhenOver`). A store that fails (Redis down) lets the request through.
   */
  async function spend(request: FastifyRequest, reply: FastifyReply, bucket: Bucket, cost: number, refuseWhenOver = true): Promise<void> {
    request.rateLimitBucket = bucket;
    let results;
    try {
      if (cost > 1 && refuseWhenOver) {
        // A request that cannot fit is refused without spending, so it leaves what remains for cheaper ones.
        const state = await limiter(request, { increment: false });
        if (!state.isAllowed && state.remaining < cost) {
          announce(reply, bucket, state.remaining, state.ttlInSeconds);
          refuse(reply, bucket, state.ttlInSeconds, cost, state.remaining);
        }
      }
      results = cost === 1 ? [await limiter(request)] : await Promise.all(Array.from({ length: cost }, () => limiter(request)));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      request.log.warn({ err }, 'rate-limit store unavailable; request not limited');
      return;
    }
    // Each increment returns the count it reached; the highest tells what is left.
    let remaining = bucket.max;
    let resetSeconds = windowSeconds;
    let exceeded = false;
    for (const result of results) {
      if (result.isAllowed) continue; // no allow list is configured
      if (result.remaining <= remaining) ({ remaining, ttlInSeconds: resetSeconds } = result);
      exceeded ||= result.isExceeded;
    }
    announce(reply, bucket, remaining, resetSeconds);
    if (refuseWhenOver && exceeded) refuse(reply, bucket, resetSeconds, cost);
  }

  /** Refuses (429) when the bucket has nothing left, without spending from it. */
  async function refuseIfSpent(request: FastifyRequest, reply: FastifyReply, bucket: Bucket): Promise<void> {
    request.rateLimitBucket = bucket;
    let state;
    try {
      state = await limiter(request, { increment: false });
    } catch (err) {
      request.log.warn({ err }, 'rate-limit store unavailable; request not limited');
      return;
    }
    if (state.isAllowed || state.remaining > 0) return;
    announce(reply, bucket, 0, state.ttlInSeconds);
    refuse(reply, bucket, state.ttlInSeconds, 1);
  }

  return {
    aroundAuthentication(authenticate) {
      return async function limitedAuthentication(request, reply) {
        const config = request.routeOptions.config;
        const cost = config.rateLimitCost ?? 1;
        if (cost === 0) return authenticate(request, reply);
        const address = addressBucket(request);
        if (!config.security?.length) {
          await spend(request, reply, address, cost);
          return authenticate(request, reply);
        }
        await refuseIfSpent(request, reply, address);
        try {
          await authenticate(request, reply);
        } catch (err) {
          if (err instanceof ApiError && (err.code === 'UNAUTHENTICATED' || err.code === 'FORBIDDEN')) {
            await spend(request, reply, address, 1, false);
          }
          throw err;
        }
        const principal = request.principal;
        // No credentials where they are optional: the address pays, as for a public operation.
        if (!principal) return spend(request, reply, address, cost);
        const bucket: Bucket =
          principal.kind === 'api_key'
            ? { policy: 'credential', key: `api_key:${principal.apiKeyId}`, max: settings.perCredential, who: 'this API key' }
            : { policy: 'credential', key: `session:${principal.sessionId}`, max: settings.perCredential, who: 'this session' };
        await spend(request, reply, bucket, cost);
      };
    },
    outsideApi(request, reply, done) {
      // The API's own hook counts its operations; an unknown path is answered 404 with no work done;
      // a route of cost 0 (the dashboard's static files, served from memory) is not limited.
      const { config } = request.routeOptions;
      if (config.operationId || request.is404 || config.rateLimitCost === 0) return done();
      spend(request, reply, addressBucket(request), 1).then(() => done(), done);
    },
  };
}

/**
 * ioredis as @fastify/rate-limit expects it. Connected before the server starts (a wrong
 * REDIS_URL stops it); afterwards, commands fail at once while the connection is down (no
 * offline queue), and spend lets those requests through.
 */
async function connectRedis(url: string): Promise<Redis> {
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
