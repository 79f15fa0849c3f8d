// The API reference at /docs (src/http/api-reference.ts): Scalar's plugin, loaded on the first
// request in an instance of its own and reached through our routes: the page, its script, the
// redirect from /docs, and our 404 envelope for a path it does not have.
import { describe, expect, it } from 'vitest';
import { testFileServer } from '../helpers/server.ts';

const server = testFileServer();

describe('/docs', () => {
  it('serves the reference page, pointed at /openapi.json, with the script it loads', async () => {
    const page = await fetch(`${server.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-request-id')).toBeTruthy();
    const html = await page.text();
    expect(html).toMatch(/<title>gigmarket API<\/title>/);
    expect(html).toContain('/openapi.json');
    const src = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(src).toBe('js/scalar.js');

    const script = await fetch(new URL(src!, `${server.url}/docs/`));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const body = await script.text();
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(Number(script.headers.get('content-length'))).toBe(Buffer.byteLength(body));
  });

  it('redirects /docs to /docs/', async () => {
    const res = await fetch(`${server.url}/docs`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/docs/');
  });

  it('answers a path it does not have with the API 404 envelope', async () => {
    const res = await fetch(`${server.url}/docs/nothing-here.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route for GET /docs/nothing-here.js', issues: [] } });
  });
});
