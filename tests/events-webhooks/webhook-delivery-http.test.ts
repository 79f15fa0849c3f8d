// deliver() against real local receivers: statuses, time-outs, redirects, huge bodies, refused
// addresses, DNS rebinding, TLS to a pinned address.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, parseRetryAfter, type ResolveHost } from '../../src/webhooks/safe-delivery.ts';
import { closeServer, listenLocal, readBody } from '../fakes/local-server.ts';

interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  servername?: string;
}

/** A receiver whose answer depends on the path; it records every request it reads. */
function receiver(hits: Hit[]): http.RequestListener {
  return async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '';
    hits.push({ path, headers: req.headers, body, servername: (req.socket as TLSSocket).servername || undefined });
    if (path === '/ok') res.end('thanks');
    else if (path === '/fail') res.writeHead(500).end('boom');
    else if (path === '/gone') res.writeHead(410).end();
    else if (path === '/busy') res.writeHead(429, { 'retry-after': '7' }).end('slow down');
    else if (path === '/later') res.writeHead(503, { 'retry-after': new Date(Date.now() + 120_000).toUTCString() }).end();
    else if (path === '/accented') res.end('a' + 'é'.repeat(600));
    else if (path === '/slow')
      return; // never answers
    else if (path === '/slow-body') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/huge') streamForever(res);
    else if (path.startsWith('/redirect')) res.writeHead(302, { location: path.slice('/redirect?to='.length) }).end();
    else res.writeHead(404).end();
  };
}

let hugeClosed: Promise<number> = Promise.resolve(0);
/** Writes `x` as fast as the client reads, until the client goes away; resolves to the bytes written. */
function streamForever(res: http.ServerResponse) {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  let written = 0;
  hugeClosed = new Promise((resolve) => res.on('close', () => resolve(written)));
  res.writeHead(200, { 'content-type': 'text/plain' });
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) written += chunk.length;
  };
  res.on('drain', pump);
  pump();
}

const hits: Hit[] = [];
const rebound: Hit[] = [];
const server = http.createServer(receiver(hits));
const impostor = http.createServer(receiver(rebound));
const ipv6 = http.createServer(receiver(hits));
const tls = https.createServer(
  { key: fs.readFileSync('tests/fixtures/webhooks/hooks-test.key'), cert: fs.readFileSync('tests/fixtures/webhooks/hooks-test.crt') },
  receiver(hits),
);
const ca = fs.readFileSync('tests/fixtures/webhooks/hooks-test.crt');
let base: string;
let port: number;
let ipv6Port: number;
let tlsPort: number;

const listen = (s: http.Server, host: string, p = 0) =>
  new Promise<number>((resolve) => s.listen(p, host, () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  base = await listenLocal(server);
  port = Number(new URL(base).port);
  // Same port, another loopback address: where a rebinding DNS answer would send the connection.
  await listen(impostor, '127.0.0.2', port);
  ipv6Port = await listen(ipv6, '::1');
  tlsPort = await listen(tls, '127.0.0.1');
});
afterAll(async () => {
  for (const s of [server, impostor, ipv6, tls]) await closeServer(s);
});

const post = (url: string, extra: Partial<Parameters<typeof deliver>[0]> = {}) =>
  deliver({ url, headers: { 'webhook-id': 'msg_1' }, body: '{"type":"ping"}', allowPrivate: true, ...extra });
const lastHit = () => hits.at(-1)!;

describe('deliver: what the receiver answers', () => {
  it('200: delivered, with the body, our headers and the excerpt', async () => {
    const result = await post(`${base}/ok`);
    expect(result).toMatchObject({ status: 200, responseExcerpt: 'thanks', retryAfterSeconds: null, error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(lastHit()).toMatchObject({ path: '/ok', body: '{"type":"ping"}' });
    expect(lastHit().headers).toMatchObject({ 'webhook-id': 'msg_1', 'content-type': 'application/json', host: `127.0.0.1:${port}` });
  });

  it('500, 410: failed attempts with their status', async () => {
    expect(await post(`${base}/fail`)).toMatchObject({
      status: 500,
      responseExcerpt: 'boom',
      error: { kind: 'status', message: 'HTTP 500' },
    });
    expect(await post(`${base}/gone`)).toMatchObject({ status: 410, responseExcerpt: null, error: { kind: 'status' } });
  });

  it('429 with Retry-After: 7, and 503 with an HTTP date', async () => {
    expect(await post(`${base}/busy`)).toMatchObject({ status: 429, retryAfterSeconds: 7, responseExcerpt: 'slow down' });
    const later = await post(`${base}/later`);
    expect(later.status).toBe(503);
    expect(later.retryAfterSeconds).toBeGreaterThanOrEqual(118);
    expect(later.retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it('the excerpt is the first 1 KiB, never half a character', async () => {
    const result = await post(`${base}/accented`);
    expect(result.responseExcerpt).toBe('a' + 'é'.repeat(511));
  });

  it('a huge body is read only to the cap: delivered long before the time-out, the connection closed', async () => {
    const result = await post(`${base}/huge`, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ status: 200, error: null, responseExcerpt: 'x'.repeat(1024) }); // no time-out
    // The receiver sees us hang up (what it wrote is cap + socket buffers, not 10 s of loopback).
    expect(await hugeClosed).toBeGreaterThan(64 * 1024);
  });
});

describe('deliver: time-outs cover the whole attempt', () => {
  it('no answer', async () => {
    const result = await post(`${base}/slow`, { timeoutMs: 300 });
    expect(result).toMatchObject({ status: null, error: { kind: 'timeout', message: 'no complete response within 300 ms' } });
    expect(result.durationMs).toBeGreaterThanOrEqual(290); // the receiver never answers: only the time-out ends it
  });

  it('an answer whose body never ends: the status is kept, the attempt failed', async () => {
    const result = await post(`${base}/slow-body`, { timeoutMs: 400 });
    expect(result).toMatchObject({ status: 200, error: { kind: 'timeout' } });
    expect(result.durationMs).toBeGreaterThanOrEqual(390);
  });

  it('DNS that never answers', async () => {
    const never: ResolveHost = () => new Promise(() => {});
    const result = await post('http://stuck.test/ok', { timeoutMs: 200, resolveHost: never });
    expect(result).toMatchObject({ status: null, error: { kind: 'timeout' } });
    // The lookup has its own, shorter limit within the attempt's.
    const given = await post('http://stuck.test/ok', { timeoutMs: 10_000, lookupTimeoutMs: 200, resolveHost: never });
    // Refused by the lookup's limit (the attempt's 10 s would have said `timeout`).
    expect(given).toMatchObject({ status: null, error: { kind: 'refused', message: 'host stuck.test did not resolve within 200 ms' } });
  });

  it('nobody listening: a network error, not a throw', async () => {
    const closed = http.createServer();
    const url = await listenLocal(closed);
    await closeServer(closed);
    const result = await post(`${url}/ok`);
    expect(result).toMatchObject({
      status: null,
      responseExcerpt: null,
      error: { kind: 'network', message: expect.stringMatching(/ECONNREFUSED/) },
    });
  });
});

describe('deliver: redirects', () => {
  it('a 302 to a private address is a failed attempt; the target never hears of it', async () => {
    const target = 'http://127.0.0.2:' + port + '/ok';
    const result = await post(`${base}/redirect?to=${target}`);
    expect(result).toMatchObject({
      status: 302,
      error: { kind: 'redirect', message: `HTTP 302 to ${target}: redirects are not followed` },
    });
    expect(rebound).toHaveLength(0);
  });
});

describe('deliver: refused addresses', () => {
  it('loopback, IPv6 and mapped forms, localhost: refused without a connection unless allowPrivate', async () => {
    const before = hits.length;
    for (const url of [
      `${base}/ok`,
      `http://[::1]:${ipv6Port}/ok`,
      `http://[::ffff:127.0.0.1]:${port}/ok`,
      `http://localhost:${port}/ok`,
    ]) {
      const result = await post(url, { allowPrivate: false });
      expect(result, url).toMatchObject({ status: null, error: { kind: 'refused', message: expect.stringMatching(/loopback/) } });
    }
    expect(hits).toHaveLength(before);

    // allowPrivate: how tests and local development deliver to this machine.
    for (const url of [`http://[::1]:${ipv6Port}/ok`, `http://localhost:${port}/ok`]) {
      expect(await post(url, { allowPrivate: true }), url).toMatchObject({ status: 200, error: null });
    }
    expect(hits).toHaveLength(before + 2);
  });

  it('metadata stays refused even with allowPrivate', async () => {
    const result = await post('http://169.254.169.254/latest/meta-data/', { allowPrivate: true });
    expect(result).toMatchObject({ status: null, error: { kind: 'refused', message: expect.stringMatching(/link-local/) } });
  });
});

describe('deliver: DNS rebinding', () => {
  // A resolver that answers `first` once, then `later` forever: what an attacker's DNS does with a TTL of 0.
  function rebinding(first: string, later: string) {
    const calls: string[] = [];
    const resolveHost: ResolveHost = async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? first : later, family: 4 }];
    };
    return { calls, resolveHost };
  }

  it('connects to the address it checked, not to what the name resolves to next', async () => {
    // Both addresses pass with allowPrivate, so only pinning decides which server gets the request:
    // asking the resolver again would reach 127.0.0.2, asking the system DNS would not resolve.
    const dns = rebinding('127.0.0.1', '127.0.0.2');
    const before = hits.length;
    const result = await post(`http://rebind.test:${port}/ok`, { resolveHost: dns.resolveHost });
    expect(result).toMatchObject({ status: 200, error: null });
    expect(dns.calls).toEqual(['rebind.test']);
    expect(hits).toHaveLength(before + 1);
    expect(rebound).toHaveLength(0);
    // The name stays the request's: the Host header the receiver sees.
    expect(lastHit().headers.host).toBe(`rebind.test:${port}`);
  });
});

describe('deliver: kept-alive connections', () => {
  it("sends a host's deliveries over one connection, and a new DNS answer gets a connection of its own", async () => {
    // rebind2.test answers 127.0.0.1 for two deliveries, then 127.0.0.2 (the second server, same port).
    let asked = 0;
    const resolveHost: ResolveHost = async () => [{ address: ++asked <= 2 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const sockets = new Set<unknown>();
    const count = (req: http.IncomingMessage) => sockets.add(req.socket);
    server.on('request', count);
    impostor.on('request', count);
    try {
      const url = `http://rebind2.test:${port}/ok`;
      const before = { hits: hits.length, rebound: rebound.length };
      for (let i = 0; i < 2; i++) {
        expect(await post(url, { resolveHost })).toMatchObject({ status: 200, error: null });
        // The connection goes back to the pool just after the response has been read.
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(hits).toHaveLength(before.hits + 2);
      expect(sockets.size).toBe(1);
      // The name now points elsewhere (and passes the check): the kept connection to 127.0.0.1 is not
      // reused for it; a new one goes to the address this attempt checked.
      expect(await post(url, { resolveHost })).toMatchObject({ status: 200, error: null });
      expect(rebound).toHaveLength(before.rebound + 1);
      expect(hits).toHaveLength(before.hits + 2);
      expect(sockets.size).toBe(2);
    } finally {
      server.off('request', count);
      impostor.off('request', count);
    }
  });
});

describe('deliver: https to a pinned address', () => {
  const hooksTest: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];

  it('keeps the name for SNI, the certificate check and the Host header', async () => {
    const result = await post(`https://hooks.test:${tlsPort}/ok`, { resolveHost: hooksTest, ca, requireHttps: true });
    expect(result).toMatchObject({ status: 200, error: null });
    expect(lastHit()).toMatchObject({ servername: 'hooks.test', headers: { host: `hooks.test:${tlsPort}` } });
  });

  it('a certificate for another name, or one nobody trusts, fails', async () => {
    const otherName = await post(`https://other.test:${tlsPort}/ok`, { resolveHost: hooksTest, ca });
    expect(otherName).toMatchObject({ status: null, error: { kind: 'network', message: expect.stringMatching(/ALTNAME|other\.test/) } });
    const untrusted = await post(`https://hooks.test:${tlsPort}/ok`, { resolveHost: hooksTest });
    expect(untrusted).toMatchObject({
      status: null,
      error: { kind: 'network', message: expect.stringMatching(/SELF_SIGNED|self-signed/) },
    });
  });

  it('http is refused when https is required', async () => {
    expect(await post(`${base}/ok`, { requireHttps: true })).toMatchObject({
      status: null,
      error: { kind: 'refused', message: 'must be an https URL' },
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores the rest', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-1', '1.5', 'soon', '2026-11-22 10:01', 'Mon, garbage'])
      expect(parseRetryAfter(bad, now), bad).toBeNull();
  });
});
