// Security headers on every response: nosniff, no referrer, no framing, cross-origin isolation of
// what we serve, a CSP that lets an API response load nothing, and HSTS in production; the set
// helmet's defaults give. Pages of our own replace the CSP with theirs: the HTML pages with their
// nonce-based one (src/auth/html.ts), the dashboard (src/dashboard/serve.ts) and the API reference
// at /docs (src/http/api-reference.ts) with their own. The headers are computed once at start-up
// and set in one step of the request id's hook (src/app.ts): a middleware that rebuilt them for
// each request cost a few percent of every request.

export type Directives = Record<string, string[]>;

const API_CSP: Directives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** A Content-Security-Policy header's value. */
export const contentSecurityPolicy = (directives: Directives) =>
  Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join(';');

/** The headers every response starts with (the API's CSP among them). */
export function securityHeaders(options: { production: boolean }): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(API_CSP),
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    // Only over HTTPS, which production is (behind its proxy); a year, as browsers' preload lists ask.
    ...(options.production ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'DENY',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  };
}
