// `/docs`: the API reference page (Scalar's Fastify plugin, reading /openapi.json).
//
// The plugin carries Scalar's whole browser bundle as one string literal: importing it holds it,
// and much heap besides, in every process, most of which never serve the page (docs/performance.md,
// Memory). So it is
// imported on the first request under /docs, into a Fastify instance of its own, and our routes
// hand each request to it in-process (inject). The app's hooks (security headers, logging, the
// request id) run on our routes as for any other.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import Fastify from 'fastify';
import { contentSecurityPolicy, DOCUMENT_HEADERS } from './security-headers.ts';

const API_REFERENCE_PREFIX = '/docs';
/** The spec the page reads (served by src/app.ts). */
const SPEC_URL = '/openapi.json';

let reference: Promise<FastifyInstance> | undefined;

/** The plugin's own instance, made once, on first use. */
function loadReference(): Promise<FastifyInstance> {
  reference ??= (async () => {
    const { default: scalar } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(scalar, {
      routePrefix: API_REFERENCE_PREFIX,
      configuration: { url: SPEC_URL, title: 'gigmarket API', pageTitle: 'gigmarket API' },
    });
    await inner.ready();
    return inner;
  })().catch((err) => {
    reference = undefined; // a failed load is tried again by the next request
    throw err;
  });
  return reference;
}

/** Scalar's page: its bundle and an inline start-up script, inline styles, fonts and images it fetches. */
const DOCS_CSP = contentSecurityPolicy({
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
});

/** In place of the API's CSP, set before (src/app.ts), so that errors under /docs carry it too; with the documents' headers. */
const docsPolicy: onRequestHookHandler = (_request, reply, done) => {
  reply.header('content-security-policy', DOCS_CSP).headers(DOCUMENT_HEADERS);
  done();
};

/** Hop-by-hop and framing headers are the outer reply's own business. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

export function registerApiReference(app: FastifyInstance): void {
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await loadReference();
    const response = await inner.inject({ method: 'GET', url: request.url, headers: { host: request.headers.host ?? 'localhost' } });
    // Not one of the reference's paths: the API's own 404, with its error envelope.
    if (response.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    }
    return reply.code(response.statusCode).send(response.rawPayload);
  };
  app.get(API_REFERENCE_PREFIX, { onRequest: docsPolicy }, forward);
  app.get(`${API_REFERENCE_PREFIX}/*`, { onRequest: docsPolicy }, forward);
}
