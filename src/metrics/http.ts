// The HTTP side of the metrics: every answered request counted by the operation it reached, and
// `/metrics` served where the operator asked (METRICS_PORT, or the main port behind METRICS_TOKEN),
// never without one of them. Not in openapi.yaml: an operator's endpoint, not the API's.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MetricsSettings } from '../config.ts';
import { envelope, unauthenticated } from '../errors.ts';
import { ARAZZO_PATH } from '../http/arazzo.ts';
import { PROVIDER_WEBHOOK_PATH } from '../payments/webhook-route.ts';
import type { Metrics } from './registry.ts';

export const METRICS_PATH = '/metrics';

/** The label of a route outside the API, by its path's start (first match); the rest are pages. */
const ROUTE_GROUPS: [prefix: string, operation: string][] = [
  ['/mcp', 'mcp'],
  ['/oauth/', 'oauth'],
  ['/.well-known/oauth', 'oauth'],
  ['/.well-known/openid', 'oauth'],
  ['/auth/', 'sign_in'],
  [PROVIDER_WEBHOOK_PATH, 'payment_provider'],
  ['/sandbox/', 'payment_pages'],
  ['/connect/', 'payment_pages'],
  ['/openapi.', 'docs'],
  [ARAZZO_PATH, 'docs'],
  ['/docs', 'docs'],
  ['/llms', 'docs'],
  [METRICS_PATH, 'metrics'],
  // The spec's paths asked with a method they do not define (src/http/method-not-allowed.ts).
  ['/api/', 'method_not_allowed'],
];

/** The operationId, else the route's group; `unmatched` for a URL no route has (never the URL itself). */
export function operationLabel(request: FastifyRequest): string {
  const { config, url } = request.routeOptions as { config?: { operationId?: string }; url?: string };
  if (config?.operationId) return config.operationId;
  if (url === undefined) return 'unmatched';
  return ROUTE_GROUPS.find(([prefix]) => url.startsWith(prefix))?.[1] ?? 'page';
}

const POLICY = /^"([a-z]+)"/;

/** Counts every answered request, and each rate-limit refusal by the budget its RateLimit-Policy names. */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const operation = operationLabel(request);
    metrics.request(operation, reply.statusCode, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) {
      const policy = reply.getHeader('ratelimit-policy');
      metrics.rateLimited(operation, POLICY.exec(typeof policy === 'string' ? policy : '')?.[1] ?? 'other');
    }
    done();
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when `authorization` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

const REFUSAL = 'the metrics need the bearer token METRICS_TOKEN (Authorization: Bearer <token>)';
const CHALLENGE = 'Bearer realm="metrics"';

/** `/metrics` on the main port, behind the token; free of rate limits, so a scrape is never refused 429. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get(METRICS_PATH, { config: { rateLimitCost: 0 } }, async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      reply.header('www-authenticate', CHALLENGE);
      throw unauthenticated(REFUSAL);
    }
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** `/metrics` alone on a listener of its own (METRICS_PORT), behind the token when there is one. */
export async function startMetricsServer(settings: MetricsSettings & { port: number }, metrics: Metrics): Promise<MetricsServer> {
  const json = (res: http.ServerResponse, status: number, body: object, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== METRICS_PATH) return json(res, 404, envelope('NOT_FOUND', `no route for ${req.method} ${path}`));
    if (settings.token && !bearerMatches(req.headers.authorization, settings.token)) {
      return json(res, 401, envelope('UNAUTHENTICATED', REFUSAL), { 'www-authenticate': CHALLENGE });
    }
    try {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text);
    } catch {
      json(res, 500, envelope('INTERNAL', 'the metrics could not be collected'));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
