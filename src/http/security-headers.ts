// Security headers on every response (@fastify/helmet): nosniff, no referrer, no framing, a CSP that
// lets an API response load nothing, and HSTS in production. HTML pages of our own replace the CSP
// with their nonce-based one (src/auth/html.ts); the API reference at /docs gets one that lets its
// script, styles and fonts load.
import type { FastifyInstance } from 'fastify';
import helmet from '@fastify/helmet';

const API_CSP = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/** Scalar's page: its bundle and an inline start-up script, inline styles, fonts and images it fetches. */
const DOCS_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'", "'unsafe-inline'"],
  styleSrc: ["'self'", "'unsafe-inline'", 'https:'],
  fontSrc: ["'self'", 'data:', 'https:'],
  imgSrc: ["'self'", 'data:', 'https:'],
  connectSrc: ["'self'"],
  workerSrc: ["'self'", 'blob:'],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

export async function registerSecurityHeaders(app: FastifyInstance, options: { production: boolean }): Promise<void> {
  const common = {
    frameguard: { action: 'deny' as const },
    referrerPolicy: { policy: 'no-referrer' as const },
    // Only over HTTPS, which production is (behind its proxy); a year, as browsers' preload lists ask.
    hsts: options.production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  };
  // Before helmet registers: its own onRoute hook reads the per-route options set here.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) {
      route.helmet = { ...common, contentSecurityPolicy: { useDefaults: false, directives: DOCS_CSP } };
    }
  });
  await app.register(helmet, { global: true, ...common, contentSecurityPolicy: { useDefaults: false, directives: API_CSP } });
}
