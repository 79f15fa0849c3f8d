// Rate limits (OWASP API4), counted in fixed windows (src/http/rate-limit-store.ts): in memory,
// or in Redis when REDIS_URL is set so that every server process shares the counters. Two
// budgets per window:
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
//      refused here (429), before authentication could read the database, unless the request
//      presents an API key this process knows to be active (the key cache, from memory): one
//      sender's junk keys or page loads must not lock every agent behind the same NAT out;
//   3. authenticate; when that refuses (401, or 403 for a credential this operation does not
//      take), take 1 from the address budget and answer the refusal;
//   4. take the operation's cost from the credential's budget, 429 when spent (from the address's
//      when credentials are optional and none came: security `{}`, the resume download).
// Routes outside the API (browser pages, /docs) spend 1 from the address budget in an onRequest
// hook of their own, attached as they are registered, but for the dashboard's static files
// (rateLimitCost 0); unknown paths are answered 404 without it, having cost nothing. An operation whose cost is 0 (GET /api/health, polled
// by load balancers) is not limited at all.
//
// Cost: an operation's `x-rate-limit-cost` in openapi.yaml (default 1), put in the route config
// when the routes are registered. A request of cost N takes N units at once, and only if all N
// fit: one that cannot fit is refused without spending what is left. So heavy operations draw on
// the same budget, faster, and the RateLimit headers describe one policy per caller rather than
// one per cost class.
//
// Headers (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy: "credential";q=600;w=60`
// and `RateLimit: "credential";r=595;t=42` (the policy is "address" for anonymous and failed
// requests); a 429 adds `Retry-After` in seconds. The older drafts' headers (RateLimit-Limit,
// -Remaining, -Reset: draft 06 and earlier) are not sent.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { addRouteHook } from './route-hooks.ts';
import { connectRedis, MemoryCounters, RedisCounters, type Count, type CounterStore } from './rate-limit-store.ts';

type Policy = 'credential' | 'address';

/** One of the two budgets, with its RateLimit-Policy header (the same on every response). */
interface Budget {
  policy: Policy;
  max: number;
  policyHeader: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** From the spec's `x-rate-limit-cost`: units one request of this operation takes (0: not limited). */
    rateLimitCost?: number;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface RateLimits {
  /** Wraps the API's authentication hook with the steps above. */
  aroundAuthentication(authenticate: Hook): Hook;
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

/**
 * The client address a budget counts: IPv4 as it is; IPv6 by its /64, since one host commonly
 * holds a whole /64 and could otherwise take a fresh budget per address; IPv4 mapped into IPv6
 * as the IPv4 address.
 */
export function addressOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    const v6 = ipaddr.IPv6.parse(ip);
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
  } catch {
    return ip;
  }
}

/** Who a counter's key stands for, in a refusal's message. */
function whoOf(key: string): string {
  if (key.startsWith('address:')) return `address ${key.slice('address:'.length)}`;
  return key.startsWith('api_key:') ? 'this API key' : 'this session';
}

/**
 * Opens the counters (in memory, or in Redis with REDIS_URL), limits the routes outside the API as
 * they are registered (call it before them), and returns the API's hook.
 */
export interface RateLimitOptions {
  /** Whether the request presents an API key known to be active, answered from memory (step 2). */
  knownKey?: (request: FastifyRequest) => boolean;
}

export async function registerRateLimits(app: FastifyInstance, config: Config, options: RateLimitOptions = {}): Promise<RateLimits> {
  const settings = config.rateLimit;
  if (!settings) return { aroundAuthentication: (authenticate) => authenticate };

  const store: CounterStore = config.redisUrl
    ? new RedisCounters(await connectRedis(config.redisUrl), settings.keyPrefix, settings.windowMs)
    : new MemoryCounters(settings.windowMs);
  app.addHook('onClose', () => store.close());
  const windowSeconds = Math.ceil(settings.windowMs / 1000);
  const budget = (policy: Policy, max: number): Budget => ({ policy, max, policyHeader: `"${policy}";q=${max};w=${windowSeconds}` });
  const credentialBudget = budget('credential', settings.perCredential);
  const addressBudget = budget('address', settings.anonymous);
  const knownKey = options.knownKey ?? (() => false);

  function announce(reply: FastifyReply, budget: Budget, count: Count): void {
    reply.header('ratelimit-policy', budget.policyHeader);
    reply.header('ratelimit', `"${budget.policy}";r=${count.remaining};t=${Math.ceil(count.resetMs / 1000)}`);
  }

  function refuse(reply: FastifyReply, budget: Budget, key: string, count: Count, cost: number): never {
    const retryAfter = Math.max(1, Math.ceil(count.resetMs / 1000));
    reply.header('retry-after', String(retryAfter));
    const what = budget.policy === 'address' ? ' for requests without accepted credentials' : '';
    const state =
      count.remaining > 0
        ? `only ${count.remaining} of its ${budget.max} units per ${windowSeconds} s${what} are left and this operation costs ${cost}`
        : `its ${budget.max} units per ${windowSeconds} s${what} are spent${cost > 1 ? ` (this operation costs ${cost})` : ''}`;
    throw new ApiError('RATE_LIMITED', `rate limit exceeded for ${whoOf(key)}: ${state}; retry after ${retryAfter} s`);
  }

  /**
   * Announces what is left and refuses (429) when the units did not fit. Cost 0 is step 2's read of
   * the address: it speaks only to refuse, and lets a known key past (that key spends its own budget).
   */
  function settle(
    request: FastifyRequest,
    reply: FastifyReply,
    budget: Budget,
    key: string,
    count: Count,
    cost: number,
    refuseWhenOver: boolean,
  ): void {
    if (cost === 0 && (count.remaining > 0 || knownKey(request))) return;
    announce(reply, budget, count);
    if (cost === 0 || (!count.taken && refuseWhenOver)) refuse(reply, budget, key, count, cost);
  }

  function storeFailed(request: FastifyRequest, err: unknown): void {
    request.log.warn({ err }, 'rate-limit store unavailable; request not limited');
  }

  /**
   * Takes `cost` units from the counter and announces what is left; throws 429 when they did
   * not fit (unless `refuseWhenOver` is false). Cost 0 reads: 429 only when nothing is left. A
   * store that fails (Redis down) lets the request through. Synchronous with the in-memory
   * store, so that a request limited in memory spends no promise on it.
   */
  function spend(
    request: FastifyRequest,
    reply: FastifyReply,
    budget: Budget,
    key: string,
    cost: number,
    refuseWhenOver = true,
  ): void | Promise<void> {
    let count: Count | Promise<Count>;
    try {
      count = store.take(key, cost, budget.max);
    } catch (err) {
      return storeFailed(request, err);
    }
    if (!(count instanceof Promise)) return settle(request, reply, budget, key, count, cost, refuseWhenOver);
    return count.then(
      (counted) => settle(request, reply, budget, key, counted, cost, refuseWhenOver),
      (err: unknown) => storeFailed(request, err),
    );
  }

  /** Routes outside the API spend 1 from their address's budget. */
  function outsideApi(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    let spent: void | Promise<void>;
    try {
      spent = spend(request, reply, addressBudget, `address:${addressOf(request.ip)}`, 1);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (spent) spent.then(() => done(), done);
    else done();
  }
  // The API's operations are counted by its own hook (operationId); a route of cost 0 (the
  // dashboard's static files, served from memory) is not limited. Registered routes only: an
  // unknown path is answered 404 with no work done.
  app.addHook('onRoute', (route) => {
    if (!route.config?.operationId && route.config?.rateLimitCost !== 0) addRouteHook(route, 'onRequest', outsideApi);
  });

  return {
    aroundAuthentication(authenticate) {
      return async function limitedAuthentication(request, reply) {
        const config = request.routeOptions.config;
        const cost = config.rateLimitCost ?? 1;
        if (cost === 0) return authenticate(request, reply);
        const address = `address:${addressOf(request.ip)}`;
        // spend() answers synchronously in memory: awaited only when it returns a promise (Redis).
        if (!config.security?.length) {
          const spent = spend(request, reply, addressBudget, address, cost);
          if (spent) await spent;
          return authenticate(request, reply);
        }
        const read = spend(request, reply, addressBudget, address, 0);
        if (read) await read;
        try {
          await authenticate(request, reply);
        } catch (err) {
          if (err instanceof ApiError && (err.code === 'UNAUTHENTICATED' || err.code === 'FORBIDDEN')) {
            await spend(request, reply, addressBudget, address, 1, false);
          }
          throw err;
        }
        const principal = request.principal;
        // No credentials where they are optional: the address pays, as for a public operation.
        if (!principal) return spend(request, reply, addressBudget, address, cost);
        const key = principal.kind === 'api_key' ? `api_key:${principal.apiKeyId}` : `session:${principal.sessionId}`;
        return spend(request, reply, credentialBudget, key, cost);
      };
    },
  };
}
