// Delivering a POST to a URL an end user registered, without letting that user reach what only the
// server can reach (SSRF): loopback, private networks, cloud metadata. The URL is checked when it is
// registered and again on every attempt; the attempt then connects to the very addresses it checked.
import dns, { type LookupAddress } from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { agentFor, loadUndici } from './connections.ts';
import { type ApiError, validationFailed } from '../errors.ts';

export type WebhookUrlReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'https_required'
  | 'credentials_in_url'
  | 'host_not_resolved'
  | 'address_not_allowed';

/** Why a URL may not be delivered to; a route turns it into 400 VALIDATION_FAILED naming its field. */
export class WebhookUrlError extends Error {
  readonly reason: WebhookUrlReason;

  constructor(reason: WebhookUrlReason, message: string) {
    super(message);
    this.name = 'WebhookUrlError';
    this.reason = reason;
  }

  toApiError(field: string): ApiError {
    return validationFailed(field, this.message);
  }
}

/** Resolves a host name to every address it has; a test stands in for DNS with its own. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

const resolveWithDns: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true });

/**
 * How long a lookup of a webhook's host is waited for, unless told: the host is the user's, and so
 * is its DNS server, which may never answer. The lookup itself (getaddrinfo, on libuv's thread
 * pool) cannot be cancelled: it holds its thread until the system's resolver gives up.
 */
export const LOOKUP_TIMEOUT_MS = 5000;

export interface WebhookUrlOptions {
  /** Loopback and private networks allowed (local development and tests): WEBHOOKS_ALLOW_PRIVATE_URLS. */
  allowPrivate: boolean;
  requireHttps: boolean;
  resolveHost?: ResolveHost;
  /** How long the host's lookup is waited for (LOOKUP_TIMEOUT_MS by default). */
  lookupTimeoutMs?: number;
}

export interface CheckedWebhookUrl {
  url: URL;
  /** The host without IPv6 brackets: what DNS was asked, and what the connection asks again. */
  hostname: string;
  /** Every address the host had, each checked; the delivery connects to one of these and no other. */
  addresses: LookupAddress[];
}

// What ipaddr.js's range() names, said for the person who registered the URL.
const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  uniqueLocal: 'a private network address (fc00::/7)',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  linkLocal: 'a link-local address (169.254.0.0/16, fe80::/10; cloud metadata lives there)',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address (0.0.0.0, ::)',
  broadcast: 'the broadcast address',
};
// The ranges WEBHOOKS_ALLOW_PRIVATE_URLS opens; link-local stays shut so a development server on a
// cloud machine still cannot be made to read the metadata service.
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be delivered to, in words; undefined when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  if (!net.isIP(address)) return 'not an IP address';
  // ::ffff:127.0.0.1 (also written ::ffff:7f00:1) reaches 127.0.0.1: judge the IPv4 address.
  const ip = ipaddr.process(address);
  const range = ip.range();
  // ipaddr.js calls everything it has no name for unicast, IPv4-compatible ::7f00:1 included; of
  // IPv6 only 2000::/3 is allocated for global unicast.
  if (range === 'unicast' && (ip.kind() === 'ipv4' || ip.match(GLOBAL_UNICAST_V6))) return undefined;
  if (allowPrivate && PRIVATE_RANGES.has(range)) return undefined;
  return RANGE_NAMES[range] ?? `a reserved address (${range === 'unicast' ? 'outside 2000::/3' : range})`;
}

/**
 * Parses and checks a webhook URL: http(s) only (https only when `requireHttps`), no credentials,
 * and a host that is, or resolves only to, public addresses. Throws WebhookUrlError.
 */
export async function checkWebhookUrl(raw: string, options: WebhookUrlOptions): Promise<CheckedWebhookUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('invalid_url', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookUrlError('scheme_not_allowed', `must be an http(s) URL, not ${url.protocol.slice(0, -1)}`);
  }
  if (options.requireHttps && url.protocol !== 'https:') throw new WebhookUrlError('https_required', 'must be an https URL');
  if (url.username || url.password) throw new WebhookUrlError('credentials_in_url', 'must not contain a user name or password');

  // WHATWG URL has already normalized 0x7f.1, 2130706433 and the like to 127.0.0.1.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  if (net.isIP(hostname)) {
    addresses = [{ address: hostname, family: net.isIP(hostname) }];
  } else {
    const lookupTimeoutMs = options.lookupTimeoutMs ?? LOOKUP_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(lookupTimeoutMs);
    try {
      addresses = await untilAborted((options.resolveHost ?? resolveWithDns)(hostname), timeout);
    } catch (err) {
      if (timeout.aborted) throw new WebhookUrlError('host_not_resolved', `host ${hostname} did not resolve within ${lookupTimeoutMs} ms`);
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new WebhookUrlError('host_not_resolved', `host ${hostname} does not resolve (${code})`);
    }
    if (!addresses.length) throw new WebhookUrlError('host_not_resolved', `host ${hostname} has no address`);
  }
  // Every address: a name with one public and one private record would otherwise pass half the time.
  for (const { address } of addresses) {
    const refused = refusedAddress(address, options.allowPrivate);
    if (refused) {
      const what = address === hostname ? `${address} is` : `host ${hostname} resolves to ${address},`;
      throw new WebhookUrlError('address_not_allowed', `${what} ${refused}; webhooks are delivered to public addresses only`);
    }
  }
  return { url, hostname, addresses };
}

/**
 * The DNS of the connection: it answers only the addresses the check saw. Connecting through it,
 * the connection keeps the host name (TLS SNI, certificate check, Host header) but cannot be sent
 * elsewhere by a second DNS answer (DNS rebinding).
 */
function pinnedLookup(checked: CheckedWebhookUrl): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const addresses = checked.addresses.filter((a) => family === 0 || a.family === family);
    const first = addresses[0];
    if (hostname !== checked.hostname || !first) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The whole attempt: the URL check's DNS, connecting, the response and its body. */
  timeoutMs?: number;
  /** Past this many bytes of response body, stop reading (the first 1 KiB is kept). */
  maxResponseBytes?: number;
  allowPrivate: boolean;
  requireHttps?: boolean;
  resolveHost?: ResolveHost;
  lookupTimeoutMs?: number;
  /** Certificates to trust besides the system's (tests, a local https receiver). */
  ca?: string | Buffer;
}

export type DeliveryFailureKind = 'refused' | 'timeout' | 'network' | 'redirect' | 'status';

export interface DeliveryResult {
  /** The receiver's HTTP status; null when none came (refused URL, network failure, time-out before it). */
  status: number | null;
  durationMs: number;
  /** The first 1 KiB of the response body as UTF-8; null without a body. */
  responseExcerpt: string | null;
  /** From Retry-After (seconds or an HTTP date), when the response had one. */
  retryAfterSeconds: number | null;
  /** Null when the message was delivered: a 2xx whose response completed in time. */
  error: { kind: DeliveryFailureKind; message: string } | null;
}

const EXCERPT_BYTES = 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** One delivery attempt. Never throws for what the receiver or the network does: it reports it. */
export async function deliver(input: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? 15_000;
  const maxResponseBytes = input.maxResponseBytes ?? 64 * 1024;
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number | null = null;
  let retryAfterSeconds: number | null = null;
  let responseExcerpt: string | null = null;
  const done = (error: DeliveryResult['error']): DeliveryResult => {
    const durationMs = Math.round(performance.now() - started);
    return { status, durationMs, responseExcerpt, retryAfterSeconds, error };
  };
  const failed = (err: unknown): DeliveryResult => {
    const code = (err as NodeJS.ErrnoException).code;
    if (signal.aborted || (code && TIMEOUT_CODES.has(code))) {
      return done({ kind: 'timeout', message: `no complete response within ${timeoutMs} ms` });
    }
    return done({ kind: 'network', message: `${code ?? (err as Error).name}: ${(err as Error).message}` });
  };

  let checked: CheckedWebhookUrl;
  try {
    // Again on every attempt: what a name resolves to may have changed since it was registered.
    checked = await untilAborted(
      checkWebhookUrl(input.url, {
        allowPrivate: input.allowPrivate,
        requireHttps: input.requireHttps ?? false,
        resolveHost: input.resolveHost,
        lookupTimeoutMs: input.lookupTimeoutMs,
      }),
      signal,
    );
  } catch (err) {
    if (err instanceof WebhookUrlError) return done({ kind: 'refused', message: err.message });
    return failed(err);
  }

  // A kept-alive agent whose connections go only to this attempt's checked addresses.
  const target = { origin: checked.url.origin, addresses: checked.addresses.map((a) => a.address) };
  try {
    const agent = await agentFor(target, { lookup: pinnedLookup(checked), timeoutMs, ...(input.ca ? { ca: input.ca } : {}) });
    const { request } = await loadUndici();
    // undici's request follows no redirects: a 3xx comes back as it is.
    const response = await request(checked.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'gigmarket-webhooks/1', ...input.headers },
      body: input.body,
      dispatcher: agent,
      signal,
    });
    status = response.statusCode;
    retryAfterSeconds = parseRetryAfter(firstHeader(response.headers['retry-after']));
    responseExcerpt = await readExcerpt(response.body, maxResponseBytes);
    if (status >= 200 && status < 300) return done(null);
    if (status >= 300 && status < 400) {
      const location = firstHeader(response.headers.location)?.slice(0, 200) ?? '(no Location)';
      return done({ kind: 'redirect', message: `HTTP ${status} to ${location}: redirects are not followed` });
    }
    return done({ kind: 'status', message: `HTTP ${status}` });
  } catch (err) {
    return failed(err);
  }
}

/** The first `EXCERPT_BYTES` of the body as text; reading stops past `maxBytes` so a huge body costs nothing. */
async function readExcerpt(body: Readable, maxBytes: number): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    readBytes += chunk.length;
    if (keptBytes < EXCERPT_BYTES) {
      const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    // Leaving the loop destroys the body, and with it the connection.
    if (readBytes >= maxBytes) break;
  }
  if (!readBytes) return null;
  // stream: true holds back a character cut in half at the 1 KiB mark instead of showing U+FFFD.
  return new TextDecoder().decode(Buffer.concat(kept), { stream: true });
}

/** Retry-After as seconds from now: a number of seconds, or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date starts with the day's name; Date.parse alone would take almost anything.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The promise, or the signal's reason once it aborts first (DNS lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
