// How the dashboard's built files (web/dist/, built by the tests' globalSetup when missing) are
// served: index.html at `/`, revalidated on every load; hashed assets cached for a year; nothing
// else read from disk; static files free of the address's rate limit.
import { describe, expect, it } from 'vitest';
import { testFileServer } from '../helpers/server.ts';

const server = testFileServer();

/** The script and stylesheet index.html names. */
async function assetsOfIndex(): Promise<string[]> {
  const html = await (await fetch(`${server.url}/`)).text();
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('the dashboard files', () => {
  it('serve index.html at / with no-cache and an ETag that answers 304', async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toContain('<style');
    const again = await fetch(`${server.url}/`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serve the hashed script and stylesheet for a year, immutable, with their types', async () => {
    const assets = await assetsOfIndex();
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const res = await fetch(`${server.url}${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type'), asset).toBe(
        asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      // Served from memory: no rate-limit budget spent (the page itself spends one).
      expect(res.headers.get('ratelimit'), asset).toBeNull();
      expect((await res.text()).length).toBeGreaterThan(100);
    }
    expect((await fetch(`${server.url}/`)).headers.get('ratelimit')).toMatch(/^"address";r=\d+;t=\d+$/);
  });

  it('answer 404 with the error envelope for an unknown asset, and never reach outside web/dist', async () => {
    for (const path of ['/assets/nope.js', '/assets/../package.json', '/assets/%2e%2e/package.json', '/index.html', '/src/main.tsx']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.code, path).toBe('NOT_FOUND');
    }
    const icon = await fetch(`${server.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });
});
