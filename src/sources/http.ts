// Fetching a feed with bounds: one deadline for the whole request (headers and body), a cap on the
// body's size, and any failure as a FeedError that names the source's address, so the sync can log
// it and move on to the next source.
import { BodyTooLargeError, readCappedBody } from '../capped-body.ts';

export interface FetchLimits {
  /** For the whole request, body included. */
  timeoutMs: number;
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 15_000, maxBytes: 5 * 1024 * 1024 };

const USER_AGENT = 'gigmarket-source-sync/1.0';

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

/** GET `url`; a status other than 2xx, a timeout or an oversized body is a FeedError. */
export async function fetchText(url: string, headers: Record<string, string>, limits: FetchLimits): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const response = await fetch(url, { headers: { 'user-agent': USER_AGENT, ...headers }, signal: controller.signal, redirect: 'follow' });
    const bytes = await readBounded(response, limits.maxBytes, url);
    const body = decode(response.headers, bytes);
    if (response.status < 200 || response.status > 299) {
      const detail = body.replace(/\s+/g, ' ').trim().slice(0, 200);
      throw new FeedError(`${url}: HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
    }
    return { status: response.status, headers: response.headers, body };
  } catch (err) {
    if (err instanceof FeedError) throw err;
    if (controller.signal.aborted) throw new FeedError(`${url}: no complete response within ${limits.timeoutMs} ms`);
    const cause = (err as Error & { cause?: Error }).cause;
    throw new FeedError(`${url}: ${(err as Error).message}${cause?.message ? ` (${cause.message})` : ''}`);
  } finally {
    clearTimeout(timer);
  }
}
