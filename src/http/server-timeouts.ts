// How long the server waits on a client (docs/architecture.md §2), as Fastify's constructor takes it.
// Without these, Fastify waits forever for a request's body: a client sending a byte now and then
// would hold its connection, and what the request holds, for as long as it likes.
import type { HttpTimeouts } from '../config.ts';

/**
 * Node compares each connection against the request time-out on a timer, every 30 s unless told:
 * a request could then outlive its limit by that much. Every tenth of the limit, at most once a
 * second, keeps the overrun small; each check is one walk over the open connections.
 */
const checkEveryMs = (requestMs: number) => Math.min(1000, Math.max(10, Math.ceil(requestMs / 10)));

export function serverTimeouts(timeouts: HttpTimeouts) {
  return {
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.connectionMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node's own server options. Given here, requestTimeout also bounds the headers' time-out (the
    // lesser of it and 60 s); a request too slow is answered 408 by src/http/client-errors.ts.
    http: { requestTimeout: timeouts.requestMs, connectionsCheckingInterval: checkEveryMs(timeouts.requestMs) },
  };
}
