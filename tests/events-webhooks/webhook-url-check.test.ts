// Which webhook URLs are refused, and why; no connection is made here (tests/events-webhooks/webhook-delivery-http.test.ts does).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { urlOptions } from '../../src/services/webhook-delivery.ts';
import { checkWebhookUrl, type ResolveHost, WebhookUrlError } from '../../src/webhooks/safe-delivery.ts';

const strict = { allowPrivate: false, requireHttps: false };
const local = { allowPrivate: true, requireHttps: false };

async function refusal(url: string, options: Parameters<typeof checkWebhookUrl>[1] = strict): Promise<WebhookUrlError> {
  const error = await checkWebhookUrl(url, options).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error, url).toBeInstanceOf(WebhookUrlError);
  return error as WebhookUrlError;
}

const resolvingTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('checkWebhookUrl: literal addresses of every refused kind', () => {
  // [url as registered, what the message must say]
  const refused: [string, RegExp][] = [
    ['http://127.0.0.1/hook', /loopback/],
    ['http://127.1/', /127\.0\.0\.1 is a loopback/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback/],
    ['http://0x7f.0.0.1:8080/', /loopback/],
    ['http://[::1]/', /loopback/],
    ['http://10.0.0.1/', /private network/],
    ['http://172.16.0.1/', /private network/],
    ['http://172.31.255.255/', /private network/],
    ['http://192.168.1.1/', /private network/],
    ['http://[fc00::1]/', /private network/],
    ['http://[fd12:3456::1]/', /private network/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://169.254.1.1/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://100.127.255.254/', /carrier-grade NAT/],
    ['http://224.0.0.1/', /multicast/],
    ['http://239.255.255.250/', /multicast/],
    ['http://[ff02::1]/', /multicast/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://255.255.255.255/', /broadcast/],
    // IPv4-mapped IPv6: judged as the IPv4 address they reach.
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://[::ffff:7f00:1]/', /loopback/],
    ['http://[::ffff:169.254.169.254]/', /link-local/],
    ['http://[::ffff:10.0.0.1]/', /private network/],
    ['http://[::ffff:0.0.0.0]/', /unspecified/],
    // Other reserved and IPv4-embedding ranges.
    ['http://[::7f00:1]/', /reserved address \(outside 2000::\/3\)/],
    ['http://[::ffff:0:7f00:1]/', /reserved address \(rfc6145\)/],
    ['http://[64:ff9b::7f00:1]/', /reserved address \(rfc6052\)/],
    ['http://[2002:7f00:1::]/', /reserved address \(6to4\)/],
    ['http://[2001:db8::1]/', /reserved/],
    ['http://[100::1]/', /reserved address \(discard\)/],
    ['http://192.0.2.1/', /reserved/],
    ['http://198.18.0.1/', /reserved/],
    ['http://240.0.0.1/', /reserved/],
  ];

  it.each(refused)('refuses %s', async (url, message) => {
    const error = await refusal(url);
    expect(error.reason).toBe('address_not_allowed');
    expect(error.message).toMatch(message);
  });

  it('lets public addresses through, just outside the private ranges too', async () => {
    for (const url of [
      'http://8.8.8.8/',
      'https://[2606:4700:4700::1111]/x',
      'http://172.32.0.1/',
      'http://100.128.0.1/',
      'http://11.0.0.1/',
    ]) {
      const checked = await checkWebhookUrl(url, strict);
      expect(checked.addresses).toHaveLength(1);
      expect(checked.url.href).toBe(new URL(url).href);
    }
  });

  it('with allowPrivate, lets loopback and private networks through, never metadata, multicast or reserved', async () => {
    for (const url of [
      'http://127.0.0.1:3000/',
      'http://[::1]/',
      'http://10.1.2.3/',
      'http://192.168.0.10/',
      'http://[fd00::1]/',
      'http://100.64.0.1/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      await expect(checkWebhookUrl(url, local), url).resolves.toMatchObject({ addresses: [{}] });
    }
    for (const url of [
      'http://169.254.169.254/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://192.0.2.1/',
    ]) {
      expect((await refusal(url, local)).reason).toBe('address_not_allowed');
    }
  });
});

describe('checkWebhookUrl: the URL itself', () => {
  it('refuses what is not an http(s) URL, credentials, and http when https is required', async () => {
    expect((await refusal('not a url')).reason).toBe('invalid_url');
    expect((await refusal('/relative/path')).reason).toBe('invalid_url');
    expect((await refusal('ftp://8.8.8.8/')).reason).toBe('scheme_not_allowed');
    expect((await refusal('file:///etc/passwd')).reason).toBe('scheme_not_allowed');
    expect((await refusal('gopher://8.8.8.8:70/')).reason).toBe('scheme_not_allowed');
    expect((await refusal('http://user:secret@8.8.8.8/')).reason).toBe('credentials_in_url');
    expect((await refusal('https://user@8.8.8.8/')).reason).toBe('credentials_in_url');
    const https = { allowPrivate: false, requireHttps: true };
    expect((await refusal('http://8.8.8.8/', https)).reason).toBe('https_required');
    await expect(checkWebhookUrl('https://8.8.8.8/', https)).resolves.toBeTruthy();
  });

  it('becomes 400 VALIDATION_FAILED naming the field', async () => {
    const error = (await refusal('http://169.254.169.254/')).toApiError('url');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(error.issues).toEqual([{ path: 'url', message: expect.stringMatching(/169\.254\.169\.254 is a link-local/) }]);
  });
});

describe('checkWebhookUrl: host names', () => {
  it('refuses localhost, which resolves to loopback', async () => {
    const error = await refusal('http://localhost:8080/hook');
    expect(error.reason).toBe('address_not_allowed');
    expect(error.message).toMatch(/host localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  it('checks every address of a name: one private record among public ones is enough to refuse', async () => {
    const resolveHost = resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '10.0.0.7');
    const error = await refusal('https://hooks.example.com/', { ...strict, resolveHost });
    expect(error.message).toMatch(/host hooks\.example\.com resolves to 10\.0\.0\.7, a private network address/);
    const mapped = await refusal('https://hooks.example.com/', { ...strict, resolveHost: resolvingTo('::ffff:7f00:1') });
    expect(mapped.message).toMatch(/loopback/);
  });

  it('returns every checked address of a public name', async () => {
    const resolveHost = resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');
    const checked = await checkWebhookUrl('https://Hooks.Example.com:8443/in', { ...strict, resolveHost });
    expect(checked.hostname).toBe('hooks.example.com');
    expect(checked.addresses.map((a) => a.address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('refuses a name that does not resolve, or resolves to nothing', async () => {
    const nowhere: ResolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await refusal('https://nowhere.invalid/', { ...strict, resolveHost: nowhere });
    expect(error).toMatchObject({ reason: 'host_not_resolved', message: 'host nowhere.invalid does not resolve (ENOTFOUND)' });
    expect((await refusal('https://empty.test/', { ...strict, resolveHost: resolvingTo() })).reason).toBe('host_not_resolved');
  });
});

describe('checkWebhookUrl: a lookup that never answers', () => {
  const never: ResolveHost = () => new Promise(() => {});

  it('is given up after lookupTimeoutMs', async () => {
    const started = performance.now();
    const error = await refusal('https://stuck.example.com/', { ...strict, resolveHost: never, lookupTimeoutMs: 200 });
    expect(error).toMatchObject({ reason: 'host_not_resolved', message: 'host stuck.example.com did not resolve within 200 ms' });
    // The lookup never answers: only a timer ends it, and not the 5 s default's (a margin no load closes).
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(performance.now() - started).toBeLessThan(4_500);
    expect(error.toApiError('body.url')).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('is given up after 5 s without it, as when an endpoint is registered or changed', async () => {
    const started = performance.now();
    const error = await refusal('https://stuck.example.com/', { ...strict, resolveHost: never });
    expect(error.message).toBe('host stuck.example.com did not resolve within 5000 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(4_990); // the lookup never answers: the 5 s timer ended it
  });

  it('a slow answer within the time is taken', async () => {
    const slow: ResolveHost = (host) => new Promise((resolve) => setTimeout(() => resolvingTo('93.184.215.14')(host).then(resolve), 100));
    const checked = await checkWebhookUrl('https://slow.example.com/', { ...strict, resolveHost: slow, lookupTimeoutMs: 1000 });
    expect(checked.addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});

describe('WEBHOOK_LOOKUP_TIMEOUT_MS', () => {
  const never: ResolveHost = () => new Promise(() => {});

  it('is how long the webhook URL check waits for DNS: 5 s unless set', async () => {
    expect(urlOptions(loadConfig({ NODE_ENV: 'test' })).lookupTimeoutMs).toBe(5000);
    const options = urlOptions(loadConfig({ NODE_ENV: 'test', WEBHOOK_LOOKUP_TIMEOUT_MS: '250' }));
    const error = await refusal('https://stuck.example.com/', { ...options, resolveHost: never });
    expect(error.message).toBe('host stuck.example.com did not resolve within 250 ms');
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_LOOKUP_TIMEOUT_MS: '0' })).toThrow(/WEBHOOK_LOOKUP_TIMEOUT_MS/);
  });
});

describe('WEBHOOKS_ALLOW_PRIVATE_URLS', () => {
  it('is false unless set, true for local development and tests, refused in production', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).webhooksAllowPrivateUrls).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' }).webhooksAllowPrivateUrls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', WEBHOOKS_ALLOW_PRIVATE_URLS: '1' }).webhooksAllowPrivateUrls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE_URLS: 'false' }).webhooksAllowPrivateUrls).toBe(false);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_URLS must not be true when NODE_ENV=production/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOKS_ALLOW_PRIVATE_URLS: 'yes' })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_URLS must be true or false/,
    );
  });
});

describe('a refused private webhook URL names WEBHOOKS_ALLOW_PRIVATE_URLS outside production', () => {
  const hint = /; set WEBHOOKS_ALLOW_PRIVATE_URLS=true to allow it for local testing$/;

  it('in development, for loopback, private and CGNAT addresses only', async () => {
    const development = urlOptions(loadConfig({ NODE_ENV: 'development' }));
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://10.0.0.1/', 'http://[fd00::1]/', 'http://100.64.0.1/']) {
      expect((await refusal(url, development)).message, url).toMatch(hint);
    }
    // The setting would not open these: naming it would mislead.
    for (const url of ['http://169.254.169.254/', 'http://224.0.0.1/', 'http://192.0.2.1/']) {
      expect((await refusal(url, development)).message, url).not.toMatch(/WEBHOOKS_ALLOW_PRIVATE_URLS/);
    }
  });

  it('never in production, where the setting is refused', async () => {
    const production = urlOptions(loadConfig({ NODE_ENV: 'production' }));
    const error = await refusal('https://127.0.0.1/hooks', production);
    expect(error.message).toMatch(/loopback address; webhooks are delivered to public addresses only$/);
  });
});
