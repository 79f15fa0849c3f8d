// Fetching a feed with bounds: one deadline for the whole request (headers and body), a cap on the
// body's size, and any failure as a FeedError that names the source's address, so the sync can log
// it and move on to the next source.
// With the webhooks' guard (src/outbound/guard.ts): the feed's URL and each redirect hop are checked,
// and each request connects only to the addresses its check saw. A failed answer is said by its
// status alone: whatever a server answers in error (a stack trace, an internal page) stays out of
// the logs and the CLI's output.
import type { Agent } from 'undici';
import { BodyTooLargeError, readCappedBody } from '../capped-body.ts';
import { type CheckedUrl, checkOutboundUrl, OutboundUrlError, pinnedLookup, type ResolveHost, untilAborted } from '../outbound/guard.ts';

export interface FetchLimits {
  /** For the whole request, body included. */
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 15_000, maxBytes: 5 * 1024 * 1024 };

const USER_AGENT = 'gigmarket-source-sync/1.0';
/** Redirects followed, each checked; a feed that moved answers one or two. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Where feeds may be read from. */
export interface FeedAccess {
  /**
   * SOURCES_ALLOW_PRIVATE_URLS: the operator's feed may be on loopback or a private network. It
   * covers the configured URL's origin only: a redirect elsewhere must lead to a public address.
   */
  allowPrivate: boolean;
  resolveHost?: ResolveHost;
}

/** The feed as a whole is unusable this time: HTTP error, timeout, too large, or not the format. */
export class FeedError extends Error {}

export interface Fetched {
  status: number;
  headers: Headers;
  body: string;
}

/** The charset the response declares, else the one an XML declaration names, else UTF-8. */
function charsetOf(headers: Headers, bytes: Uint8Array): string {
  const fromHeader = /charset=["']?([\w.:-]+)/i.exec(headers.get('content-type') ?? '')?.[1];
  if (fromHeader) return fromHeader;
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  return /^\s*<\?xml[^>]*\bencoding=["']([\w.:-]+)["']/i.exec(head)?.[1] ?? 'utf-8';
}

function decode(headers: Headers, bytes: Uint8Array): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(headers, bytes));
  } catch {
    decoder = new TextDecoder('utf-8'); // an unknown label: UTF-8 is the likeliest truth
  }
  return decoder.decode(bytes);
}

async function readBounded(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  try {
    return await readCappedBody(response, maxBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    const size = err.declaredBytes === undefined ? '' : ` of ${err.declaredBytes} bytes`;
    throw new FeedError(`${url}: response${size} is over the ${maxBytes}-byte limit`);
  }
}

/** One request, connected only to the checked addresses; redirects come back as they are. */
async function requestPinned(checked: CheckedUrl, headers: Record<string, string>, signal: AbortSignal, agents: Agent[]) {
  const undici = await import('undici');
  const agent = new undici.Agent({ connect: { lookup: pinnedLookup(checked) } });
  agents.push(agent);
  const response = await undici.fetch(checked.url, { headers, signal, redirect: 'manual', dispatcher: agent });
  return response as unknown as Response;
}

/** The URL of a redirect's Location, checked; a refusal names the hop. */
async function checkHop(from: URL, response: Response, first: URL, access: FeedAccess, signal: AbortSignal): Promise<CheckedUrl> {
  const location = response.headers.get('location');
  if (!location) throw new FeedError(`${from.href}: HTTP ${response.status} without a Location`);
  const target = URL.parse(location, from);
  if (!target) throw new FeedError(`${from.href}: HTTP ${response.status} to an invalid Location`);
  // The operator vouched for the feed's origin, not for wherever it sends us.
  const allowPrivate = access.allowPrivate && target.origin === first.origin;
  try {
    return await untilAborted(checkOutboundUrl(target.href, { ...access, allowPrivate, requireHttps: false }), signal);
  } catch (err) {
    if (!(err instanceof OutboundUrlError)) throw err;
    throw new FeedError(`${from.href}: redirect to ${target.href.slice(0, 200)} refused: ${err.message}`);
  }
}

/** GET `url`; a refused address, a status other than 2xx, a timeout or an oversized body is a FeedError. */
export async function fetchText(url: string, headers: Record<string, string>, limits: FetchLimits, access: FeedAccess): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const agents: Agent[] = [];
  const sent: Record<string, string> = { 'user-agent': USER_AGENT, ...headers };
  try {
    let checked: CheckedUrl;
    try {
      checked = await untilAborted(checkOutboundUrl(url, { ...access, requireHttps: false }), controller.signal);
    } catch (err) {
      if (err instanceof OutboundUrlError) throw new FeedError(`${url}: ${err.message}`);
      throw err;
    }
    const first = checked.url;
    for (let redirects = 0; ; redirects++) {
      const response = await requestPinned(checked, sent, controller.signal, agents);
      const at = checked.url.href;
      if (response.status >= 200 && response.status <= 299) {
        const bytes = await readBounded(response, limits.maxBytes, at);
        return { status: response.status, headers: response.headers, body: decode(response.headers, bytes) };
      }
      await response.body?.cancel().catch(() => {});
      if (!REDIRECT_STATUSES.has(response.status)) throw new FeedError(`${at}: HTTP ${response.status}`);
      if (redirects === MAX_REDIRECTS) throw new FeedError(`${url}: more than ${MAX_REDIRECTS} redirects`);
      checked = await checkHop(checked.url, response, first, access, controller.signal);
      // As fetch does: credentials (a GitHub token) go to the configured origin only.
      if (checked.url.origin !== first.origin) delete sent.authorization;
    }
  } catch (err) {
    if (err instanceof FeedError) throw err;
    if (controller.signal.aborted) throw new FeedError(`${url}: no complete response within ${limits.timeoutMs} ms`);
    const cause = (err as Error & { cause?: Error }).cause;
    throw new FeedError(`${url}: ${(err as Error).message}${cause?.message ? ` (${cause.message})` : ''}`);
  } finally {
    clearTimeout(timer);
    for (const agent of agents) agent.destroy().catch(() => {});
  }
}
