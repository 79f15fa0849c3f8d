// The guard for requests to a URL the server does not control (a webhook a user registered, an
// external feed and wherever it redirects): without it, that URL could make the server reach what
// only the server can reach (SSRF): loopback, private networks, cloud metadata. A URL is checked
// (scheme, credentials, every address its host resolves to), and the connection then goes to the
// very addresses checked (pinnedLookup), so a second DNS answer cannot send it elsewhere.
// Self-contained: imports nothing of ours, so webhooks and sources both use it.
import dns, { type LookupAddress } from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export type OutboundUrlReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'https_required'
  | 'credentials_in_url'
  | 'host_not_resolved'
  | 'address_not_allowed';

/** Why a URL may not be reached; the message says it for whoever gave the URL. */
export class OutboundUrlError extends Error {
  readonly reason: OutboundUrlReason;
  /** A loopback, private or CGNAT address refused only because allowPrivate was off. */
  readonly privateOnly: boolean;

  constructor(reason: OutboundUrlReason, message: string, privateOnly = false) {
    super(message);
    this.name = 'OutboundUrlError';
    this.reason = reason;
    this.privateOnly = privateOnly;
  }
}

/** Resolves a host name to every address it has; a test stands in for DNS with its own. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

const resolveWithDns: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true });

/**
 * How long a host's lookup is waited for, unless told: the host may be anyone's, and so is its DNS
 * server, which may never answer. The lookup itself (getaddrinfo, on libuv's thread pool) cannot
 * be cancelled: it holds its thread until the system's resolver gives up.
 */
export const LOOKUP_TIMEOUT_MS = 5000;

export interface OutboundUrlOptions {
  /** Loopback and private networks allowed (WEBHOOKS_ALLOW_PRIVATE_URLS, SOURCES_ALLOW_PRIVATE_URLS). */
  allowPrivate: boolean;
  requireHttps: boolean;
  resolveHost?: ResolveHost;
  /** How long the host's lookup is waited for (LOOKUP_TIMEOUT_MS by default). */
  lookupTimeoutMs?: number;
}

export interface CheckedUrl {
  url: URL;
  /** The host without IPv6 brackets: what DNS was asked, and what the connection asks again. */
  hostname: string;
  /** Every address the host had, each checked; the connection goes to one of these and no other. */
  addresses: LookupAddress[];
}

// What ipaddr.js's range() names, said for the person who gave the URL.
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
// The ranges allowPrivate opens; link-local stays shut so a development server on a cloud machine
// still cannot be made to read the metadata service.
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be connected to, in words; undefined when it may. */
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
 * Parses and checks a URL: http(s) only (https only when `requireHttps`), no credentials, and a
 * host that is, or resolves only to, allowed addresses. Throws OutboundUrlError.
 */
export async function checkOutboundUrl(raw: string, options: OutboundUrlOptions): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError('invalid_url', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundUrlError('scheme_not_allowed', `must be an http(s) URL, not ${url.protocol.slice(0, -1)}`);
  }
  if (options.requireHttps && url.protocol !== 'https:') throw new OutboundUrlError('https_required', 'must be an https URL');
  if (url.username || url.password) throw new OutboundUrlError('credentials_in_url', 'must not contain a user name or password');

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
      if (timeout.aborted) throw new OutboundUrlError('host_not_resolved', `host ${hostname} did not resolve within ${lookupTimeoutMs} ms`);
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new OutboundUrlError('host_not_resolved', `host ${hostname} does not resolve (${code})`);
    }
    if (!addresses.length) throw new OutboundUrlError('host_not_resolved', `host ${hostname} has no address`);
  }
  // Every address: a name with one public and one private record would otherwise pass half the time.
  for (const { address } of addresses) {
    const refused = refusedAddress(address, options.allowPrivate);
    if (refused) {
      const what = address === hostname ? `${address} is` : `host ${hostname} resolves to ${address},`;
      const privateOnly = !options.allowPrivate && refusedAddress(address, true) === undefined;
      throw new OutboundUrlError('address_not_allowed', `${what} ${refused}`, privateOnly);
    }
  }
  return { url, hostname, addresses };
}

/**
 * The DNS of the connection: it answers only the addresses the check saw. Connecting through it,
 * the connection keeps the host name (TLS SNI, certificate check, Host header) but cannot be sent
 * elsewhere by a second DNS answer (DNS rebinding).
 */
export function pinnedLookup(checked: CheckedUrl): LookupFunction {
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

/** The promise, or the signal's reason once it aborts first (DNS lookups cannot be cancelled). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
