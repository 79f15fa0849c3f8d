// Security headers. Every response carries the ones that protect a response a browser does not
// render as a page: nosniff, no framing (X-Frame-Options and the CSP's frame-ancestors), no
// cross-origin reads (CORP), a CSP that lets an API response load nothing, and HSTS in production:
// OWASP's REST Security Cheat Sheet's set for API responses. The pages we serve as HTML documents
// add the rest of helmet's defaults (DOCUMENT_HEADERS: opener isolation, no referrer, and the
// legacy switches), which a browser only acts on for a document, and replace the CSP with their
// own: the server-rendered pages (src/auth/html.ts) a nonce-based one, the dashboard
// (src/dashboard/serve.ts) and the API reference at /docs (src/http/api-reference.ts) theirs.
//
// JSON responses used to carry the documents' set too: 11 headers where 4 do the work, each
// validated, formatted and written by Node, allocating on every gig read for headers no client
// acts on (docs/performance.md, Request pipeline).
//
// The headers are computed once at start-up and set in one step of the request id's hook
// (src/app.ts): a middleware that rebuilt them for each request cost a few percent of every
// request.

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
    'cross-origin-resource-policy': 'same-origin',
    // Only over HTTPS, which production is (behind its proxy); a year, as browsers' preload lists ask.
    ...(options.production ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
}

/** Added by the routes that serve an HTML document: headers a browser acts on only for a page it renders. */
export const DOCUMENT_HEADERS: Readonly<Record<string, string>> = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
