// Delivering a POST to a URL an end user registered, without letting that user reach what only the
// server can reach (SSRF): loopback, private networks, cloud metadata. The URL is checked when it is
// registered and again on every attempt; the attempt then connects to the very addresses it checked.
import type { Readable } from 'node:stream';
import { agentFor, loadUndici } from './connections.ts';
import { type ApiError, validationFailed } from '../errors.ts';
import {
  type CheckedUrl,
  checkOutboundUrl,
  OutboundUrlError,
  type OutboundUrlOptions,
  type OutboundUrlReason,
  pinnedLookup,
  type ResolveHost,
  untilAborted,
} from '../outbound/guard.ts';

// The check and the pinned connection are src/outbound/guard.ts's, shared with external feeds.
export { LOOKUP_TIMEOUT_MS, refusedAddress } from '../outbound/guard.ts';
export type { ResolveHost };
export type WebhookUrlReason = OutboundUrlReason;
export interface WebhookUrlOptions extends OutboundUrlOptions {
  /** Outside production: a refused loopback or private address says which setting allows it. */
  nameAllowPrivateSetting?: boolean;
}
export type CheckedWebhookUrl = CheckedUrl;

/** Why a URL may not be delivered to; a route turns it into 400 VALIDATION_FAILED naming its field. */
export class WebhookUrlError extends OutboundUrlError {
  constructor(reason: WebhookUrlReason, message: string, privateOnly = false) {
    super(reason, message, privateOnly);
    this.name = 'WebhookUrlError';
  }

  toApiError(field: string): ApiError {
    return validationFailed(field, this.message);
  }
}

/**
 * Parses and checks a webhook URL: http(s) only (https only when `requireHttps`), no credentials,
 * and a host that is, or resolves only to, public addresses. Throws WebhookUrlError.
 */
export async function checkWebhookUrl(raw: string, options: WebhookUrlOptions): Promise<CheckedWebhookUrl> {
  try {
    return await checkOutboundUrl(raw, options);
  } catch (err) {
    if (!(err instanceof OutboundUrlError)) throw err;
    const publicOnly = err.reason === 'address_not_allowed' ? '; webhooks are delivered to public addresses only' : '';
    const setting =
      err.privateOnly && options.nameAllowPrivateSetting ? '; set WEBHOOKS_ALLOW_PRIVATE_URLS=true to allow it for local testing' : '';
    throw new WebhookUrlError(err.reason, `${err.message}${publicOnly}${setting}`, err.privateOnly);
  }
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
  nameAllowPrivateSetting?: boolean;
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
        nameAllowPrivateSetting: input.nameAllowPrivateSetting,
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
