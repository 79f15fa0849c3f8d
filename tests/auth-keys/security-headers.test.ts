// Security headers on every response: JSON (success, errors of every kind, unknown routes), the
// spec, the API reference at /docs, the dashboard and our server-rendered HTML pages; the headers
// only a rendered page acts on just on the HTML documents; HSTS only in production.
import { beforeAll, describe, expect, it } from 'vitest';
import { testFileServer, startTestServer } from '../helpers/server.ts';

const server = testFileServer();
let apiKey: string;
beforeAll(async () => {
  apiKey = (await server.user('Headers')).apiKey;
});

/** On every response, beside the CSP (and HSTS in production): OWASP's set for API responses. */
const HARDENING = {
  'cross-origin-resource-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The rest of helmet's defaults: on HTML documents only. */
const DOCUMENT_ONLY = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const common = (headers: Headers, url: string) => {
  for (const [name, value] of Object.entries(HARDENING)) expect(headers.get(name), `${url}: ${name}`).toBe(value);
  expect(headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
};

const page = (headers: Headers, url: string) => {
  common(headers, url);
  for (const [name, value] of Object.entries(DOCUMENT_ONLY)) expect(headers.get(name), `${url}: ${name}`).toBe(value);
};

describe('security headers', () => {
  it('are on every JSON response, errors and unknown routes included, without the documents-only ones; the CSP there lets nothing load', async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    const cases: [string, RequestInit, number][] = [
      ['/api/health', {}, 200],
      ['/api/profile/me', { headers: auth }, 200],
      ['/api/profile/me', {}, 401],
      ['/api/gigs', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{' }, 400],
      ['/api/gigs/00000000-0000-7000-8000-000000000000', { headers: auth }, 404],
      ['/nowhere', {}, 404],
      ['/openapi.json', {}, 200],
    ];
    for (const [path, init, status] of cases) {
      const res = await fetch(`${server.url}${path}`, init);
      expect(res.status, path).toBe(status);
      await res.arrayBuffer();
      common(res.headers, path);
      for (const name of Object.keys(DOCUMENT_ONLY)) expect(res.headers.get(name), `${path}: ${name}`).toBeNull();
      expect(res.headers.get('content-security-policy'), path).toBe(
        "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
      );
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
    }
  });

  it('give /docs a CSP its own script and styles work under, the dashboard one of files only, and our HTML pages their nonce-based one, each with the documents-only headers', async () => {
    const docs = await fetch(`${server.url}/docs/`);
    expect(docs.status).toBe(200);
    await docs.text();
    page(docs.headers, '/docs/');
    expect(docs.headers.get('content-security-policy')).toContain("script-src 'self' 'unsafe-inline'");
    const dashboard = await fetch(`${server.url}/`);
    await dashboard.text();
    page(dashboard.headers, '/');
    const csp = dashboard.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('nonce-');
    const devSignIn = await fetch(`${server.url}/auth/dev`);
    await devSignIn.text();
    page(devSignIn.headers, '/auth/dev');
    expect(devSignIn.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'/);
  });

  it('include HSTS in production', async () => {
    const production = await startTestServer({ NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-enough-length' });
    try {
      const res = await fetch(`${production.url}/api/health`);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      common(res.headers, '/api/health');
    } finally {
      await production.close();
    }
  });
});
