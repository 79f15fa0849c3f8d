// Security headers on every response: nosniff, no referrer, no framing, cross-origin isolation of
// what we serve, a CSP that lets an API response load nothing, and HSTS in production; the set
// helmet's defaults give. HTML pages of our own replace the CSP with their nonce-based one
// (src/auth/html.ts), the dashboard with its own (src/dashboard/serve.ts); the API reference at
// /docs gets one that lets its script, styles and fonts load. The headers are computed once at
// start-up: a middleware that rebuilt them for each request cost a few percent of every request.
import type { FastifyInstance } from 'fastify';
import { API_REFERENCE_PREFIX } from './api-reference.ts';

type Directives = Record<string, string[]>;

const API_CSP: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** Scalar's page: its bundle and an inline start-up script, inline styles, fonts and images it fetches. */
const DOCS_CSP: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'", "'unsafe-inline'"],
  'style-src': ["'self'", "'unsafe-inline'", 'https:'],
  'font-src': ["'self'", 'data:', 'https:'],
  'img-src': ["'self'", 'data:', 'https:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'", 'blob:'],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const policy = (directives: Directives) =>
  Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join(';');

/** The headers of every response but the CSP. */
function commonHeaders(production: boolean): Record<string, string> {
  return {
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    // Only over HTTPS, which production is (behind its proxy); a year, as browsers' preload lists ask.
    ...(production ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'DENY',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  };
}

export async function registerSecurityHeaders(app: FastifyInstance, options: { production: boolean }): Promise<void> {
  const common = commonHeaders(options.production);
  const api = { 'content-security-policy': policy(API_CSP), ...common };
  const docs = { 'content-security-policy': policy(DOCS_CSP), ...common };
  // Before anything else may answer: errors and unknown routes carry them too.
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.routeOptions.url;
    reply.headers(url !== undefined && (url === API_REFERENCE_PREFIX || url.startsWith(`${API_REFERENCE_PREFIX}/`)) ? docs : api);
    done();
  });
}
