// Prometheus metrics of one server process (prom-client), in a registry of its own so that two
// runtimes in one process (tests) count apart. What is counted as it happens lives here (requests,
// refusals, webhook attempts); what the database holds is read at scrape time
// (src/metrics/database-gauges.ts). Every label takes values from a bounded set: operation ids,
// status codes, queue names, fixed words; never a URL or an id.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** What the rest of the server records into (through the context), and the registry /metrics serves. */
export interface Metrics {
  registry: Registry;
  /** One answered request, by the operation it reached (src/metrics/http.ts names non-API routes). */
  request(operation: string, status: number, seconds: number): void;
  /** A request refused 429 by the budget named in its RateLimit-Policy (`credential` or `address`). */
  rateLimited(operation: string, policy: string): void;
  /** One webhook delivery attempt: `delivered`, or the kind of its failure; how long it took. */
  webhookAttempt(result: string, seconds: number): void;
}

const WEBHOOK_RESULTS = new Set(['delivered', 'refused', 'timeout', 'network', 'redirect', 'status']);
const RATE_LIMIT_POLICIES = new Set(['credential', 'address']);
/** Up to the 15 s a webhook attempt may take. */
const WEBHOOK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** The process's metrics; `serve` false (no endpoint configured): nothing is kept beyond the counters' maps. */
export function createMetrics(serve: boolean): Metrics {
  const registry = new Registry();
  if (serve) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'gigmarket_http_requests_total',
    help: 'Answered HTTP requests, by operation (the operationId, or a fixed name outside the API) and status code.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'gigmarket_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'gigmarket_rate_limit_refusals_total',
    help: 'Requests refused 429 by a rate limit, by operation and the budget spent (credential or address).',
    labelNames: ['operation', 'policy'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'gigmarket_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by result: delivered, or the failure (status, timeout, network, refused, redirect).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const attemptLatency = new Histogram({
    name: 'gigmarket_webhook_attempt_duration_seconds',
    help: 'How long each webhook delivery attempt took, whatever its result.',
    buckets: WEBHOOK_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    request(operation, status, seconds) {
      requests.inc({ operation, status: String(status) });
      latency.observe({ operation }, seconds);
    },
    rateLimited(operation, policy) {
      refusals.inc({ operation, policy: RATE_LIMIT_POLICIES.has(policy) ? policy : 'other' });
    },
    webhookAttempt(result, seconds) {
      attempts.inc({ result: WEBHOOK_RESULTS.has(result) ? result : 'other' });
      attemptLatency.observe(seconds);
    },
  };
}
