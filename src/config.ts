// Every setting the server reads, in one place; the README's settings table mirrors this file.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  nodeEnv: string;
  dataDir: string;
  /** PGlite's shared_buffers (PGLITE_SHARED_BUFFERS), e.g. `16MB`: most of the embedded database's memory. */
  pgliteSharedBuffers: string;
  databaseUrl: string | undefined;
  /**
   * A server Postgres's time limits on the app's connections, in ms (0: none): a statement
   * (DATABASE_STATEMENT_TIMEOUT_MS) and a transaction left idle (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS).
   */
  databaseTimeLimits: { statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
  sessionSecret: string | undefined;
  sessionTtlDays: number;
  github:
    | {
        clientId: string;
        clientSecret: string;
        authorizeUrl: string;
        tokenUrl: string;
        apiUrl: string;
        /** GITHUB_TIMEOUT_MS: the longest wait for each of GitHub's answers during a sign-in. */
        timeoutMs: number;
      }
    | undefined;
  bodyLimitBytes: number;
  /** HTTP_*_TIMEOUT_MS: how long the server waits on a client (src/http/server-timeouts.ts). */
  httpTimeouts: HttpTimeouts;
  /** Which proxies' X-Forwarded-* headers to believe (Fastify's trustProxy): none unless TRUST_PROXY says. */
  trustProxy: boolean | number | string[];
  logLevel: string;
  payments: PaymentsConfig;
  /** CONTRACT_APPROVAL_TTL: how long both owners have to approve a contract. */
  contractApprovalTtlMs: number;
  /** PAYOUT_DAY_SECONDS: one day of payout_delay_days, in seconds (shorten it for a demo). */
  payoutDaySeconds: number;
  /** IDEMPOTENCY_LOCK_TIMEOUT: how long a request holds its Idempotency-Key before a retry may take it over (its holder died). */
  idempotencyLockSeconds: number;
  /** EMBEDDINGS_URL (+ _MODEL, _API_KEY, _TIMEOUT_MS): an OpenAI-compatible endpoint for semantic search. */
  embeddings: EmbeddingsSettings | undefined;
  /** LLM_URL (+ _MODEL, _API_KEY, _TIMEOUT_MS): an OpenAI-compatible chat-completions endpoint for dispute recommendations. */
  llm: LlmSettings | undefined;
  /** SOURCES_FILE: the external gig sources (JSON, see sources.example.json); undefined means none. */
  sourcesFile: string | undefined;
  /** RATE_LIMIT* settings (src/http/rate-limit.ts); undefined when RATE_LIMIT=off. */
  rateLimit: RateLimitSettings | undefined;
  /** REDIS_URL: where rate-limit counters live, shared by every server process; unset, in memory. */
  redisUrl: string | undefined;
  /** DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: the dev sign-in also when listening beyond loopback, beside a PUBLIC_URL beyond it, and for requests from elsewhere. */
  devSignInUnsafeAllowRemote: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE_URLS: webhooks may go to loopback and private networks (development and tests only). */
  webhooksAllowPrivateUrls: boolean;
  /** SOURCES_ALLOW_PRIVATE_URLS: external feeds may be on loopback and private networks (development and tests only). */
  sourcesAllowPrivateUrls: boolean;
  /**
   * WEBHOOK_RETRY_SCALE: multiplies the webhook retry schedule and the 5 days after which a failing
   * endpoint is disabled (default 1; e.g. 0.001 turns 5 min into 0.3 s, for tests and demos).
   */
  webhookRetryScale: number;
  /** SMTP_URL, MAIL_FROM, SMTP_TIMEOUT_MS: how notification emails go out; undefined means email is off. */
  email: EmailSettings | undefined;
  /** APPROVAL_REMINDERS: how long before a contract's approval deadline its owners are reminded, largest first (ms). */
  approvalRemindersMs: number[];
  /** EMAIL_RETRY_DELAY: the first wait before a notification email is sent again after a retryable failure (doubling after). */
  emailRetryDelayMs: number;
}

export interface EmailSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte. smtp://: STARTTLS when the server offers it. */
  secure: boolean;
  /** smtp:// with a password to a host beyond loopback: STARTTLS or no send, so the password never crosses a network in clear. */
  requireTls: boolean;
  /** From SMTP_URL's user and password; `pass` is not enumerable, so a logged or serialized config shows no password. */
  auth: { user: string; pass: string } | undefined;
  /** MAIL_FROM, e.g. `gigmarket <noreply@example.com>` (name may be empty). */
  from: { name: string; address: string };
  /** Each of: connecting, waiting for the greeting, and silence within the session (a dead server fails the send). */
  timeoutMs: number;
}

export interface HttpTimeouts {
  /** HTTP_REQUEST_TIMEOUT_MS: a request's headers and body must all have arrived within this (else 408). */
  requestMs: number;
  /** HTTP_CONNECTION_TIMEOUT_MS: a connection with no byte in or out for this long is closed, mid-request or mid-response. */
  connectionMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: how long an idle kept-alive connection waits for its next request. */
  keepAliveMs: number;
}

/**
 * Defaults: 30 s for a whole request (a 5 MB upload needs about 1.4 Mbit/s), 60 s of silence,
 * and Fastify's 72 s of keep-alive (longer than the 60 s idle time-out of common load balancers,
 * so the balancer, not the server, closes an idle connection and never reuses a closing one).
 */
function httpTimeouts(env: NodeJS.ProcessEnv, llmSettings: LlmSettings | undefined): HttpTimeouts {
  const timeouts = {
    requestMs: positiveInt(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000),
    connectionMs: positiveInt(env, 'HTTP_CONNECTION_TIMEOUT_MS', 60_000),
    keepAliveMs: positiveInt(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000),
  };
  // The connection of a recommendation is silent while the model thinks.
  if (llmSettings && llmSettings.timeoutMs >= timeouts.connectionMs) {
    throw new Error(
      `HTTP_CONNECTION_TIMEOUT_MS (${timeouts.connectionMs}) must be longer than LLM_TIMEOUT_MS (${llmSettings.timeoutMs}): a recommendation's connection is silent while the model answers`,
    );
  }
  return timeouts;
}

export interface RateLimitSettings {
  /** RATE_LIMIT_PER_MINUTE: units per window for one credential (an API key, or a browser session). */
  perCredential: number;
  /** RATE_LIMIT_ANONYMOUS_PER_MINUTE: units per window for one client address, unauthenticated or failing authentication. */
  anonymous: number;
  /** RATE_LIMIT_WINDOW: the fixed window both limits count over. */
  windowMs: number;
  /** RATE_LIMIT_PREFIX: the prefix of the counters' keys in Redis. */
  keyPrefix: string;
}

/** RATE_LIMIT=off turns rate limits off; otherwise the limits, counted per RATE_LIMIT_WINDOW. */
function rateLimit(env: NodeJS.ProcessEnv): RateLimitSettings | undefined {
  const mode = (env.RATE_LIMIT ?? '').trim();
  if (mode === 'off') return undefined;
  if (mode !== '' && mode !== 'on') throw new Error(`RATE_LIMIT must be on or off, got "${env.RATE_LIMIT}"`);
  const atLeastOne = (name: string, fallback: number) => {
    const value = int(env, name, fallback);
    if (value < 1) throw new Error(`${name} must be at least 1 (RATE_LIMIT=off turns limits off), got "${env[name]}"`);
    return value;
  };
  const windowMs = duration(env, 'RATE_LIMIT_WINDOW', '1m');
  if (windowMs < 1000) throw new Error(`RATE_LIMIT_WINDOW must be at least 1s, got "${env.RATE_LIMIT_WINDOW}"`);
  return {
    perCredential: atLeastOne('RATE_LIMIT_PER_MINUTE', 600),
    anonymous: atLeastOne('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 60),
    windowMs,
    keyPrefix: env.RATE_LIMIT_PREFIX || 'gigmarket:ratelimit:',
  };
}

function redisUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    /* not a URL */
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error(`REDIS_URL must be a redis:// or rediss:// URL, got "${raw}"`);
  return raw;
}

/** What an error message may show of SMTP_URL: scheme, user and host; never the password, path or query. */
function redactedUrl(url: URL): string {
  const user = url.username ? `${url.username}${url.password ? ':***' : ''}@` : '';
  return `${url.protocol}//${user}${url.host}`;
}

const SMTP_URL_EXAMPLE = 'smtp://user:password@mail.example.com:587 or smtps://user:password@mail.example.com';
// An address without quoting or comments: enough for a sender we configure ourselves.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** `noreply@example.com`, `gigmarket <noreply@example.com>` or `"gigmarket" <noreply@example.com>`. */
function mailFrom(raw: string): EmailSettings['from'] {
  const value = raw.trim();
  const named = /^(?:"([^"]*)"|([^"<>]*?))\s*<([^<>]*)>$/.exec(value);
  const name = named ? (named[1] ?? named[2] ?? '').trim() : '';
  const address = named ? named[3]!.trim() : value;
  // A line break would let the name write headers of its own.
  if (!ADDRESS.test(address) || /[\r\n]/.test(name)) {
    throw new Error(`MAIL_FROM must be an address such as noreply@example.com or "gigmarket <noreply@example.com>", got "${raw}"`);
  }
  return { name, address };
}

/** Email is on when SMTP_URL is set; it then needs MAIL_FROM. No message ever shows the password. */
function email(env: NodeJS.ProcessEnv): EmailSettings | undefined {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Neither the value nor URL's own error (it carries the input): where the password ends is unknown.
    throw new Error(
      `SMTP_URL must be a URL such as ${SMTP_URL_EXAMPLE} (percent-encode special characters in the user and password); the value set does not parse and is not shown, as it may hold a password`,
    );
  }
  // Only the scheme until the URL is known to have a host: before that, the parser may have read the password as a path.
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, got a URL starting with "${url.protocol}"`);
  }
  if (!url.hostname) throw new Error(`SMTP_URL must be smtp://[user:password@]host[:port] or smtps://..., got one without a host`);
  const shown = redactedUrl(url);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw new Error(`SMTP_URL takes no path or query (${SMTP_URL_EXAMPLE}), got one after "${shown}"`);
  }
  let user: string;
  let pass: string;
  try {
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
  } catch {
    throw new Error(`SMTP_URL's user or password is not valid percent-encoding, got "${shown}"`);
  }
  if (Boolean(user) !== Boolean(pass)) throw new Error(`SMTP_URL must have both a user and a password, or neither, got "${shown}"`);
  if (!env.MAIL_FROM?.trim()) {
    throw new Error('MAIL_FROM is required when SMTP_URL is set: the sender, such as "gigmarket <noreply@example.com>"');
  }
  const timeoutMs = int(env, 'SMTP_TIMEOUT_MS', 10_000);
  if (timeoutMs < 1) throw new Error(`SMTP_TIMEOUT_MS must be at least 1, got "${env.SMTP_TIMEOUT_MS}"`);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1'); // IPv6 without its brackets
  let auth: EmailSettings['auth'];
  if (user) {
    auth = { user } as { user: string; pass: string };
    Object.defineProperty(auth, 'pass', { value: pass, enumerable: false });
  }
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTls: !secure && Boolean(auth) && !isLoopbackHost(host),
    auth,
    from: mailFrom(env.MAIL_FROM),
    timeoutMs,
  };
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `48h`, `30m`, `90s`, `2d`, `500ms`, or a plain number of seconds. */
function duration(env: NodeJS.ProcessEnv, name: string, fallback: string): number {
  const raw = env[name] || fallback;
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new Error(`${name} must be a duration like 48h, 30m or 90s, got "${raw}"`);
  return Number(match[1]) * DURATION_UNITS[match[2] ?? 's']!;
}

/** stripe when STRIPE_SECRET_KEY is set, else the local sandbox (docs/architecture.md §7). */
export interface PaymentsConfig {
  provider: 'stripe' | 'sandbox';
  stripe: StripeSettings | undefined;
}

export interface StripeSettings {
  secretKey: string;
  /** STRIPE_WEBHOOK_SECRET, comma-separated: the platform endpoint's and the Connect endpoint's secrets differ. */
  webhookSecrets: string[];
  /** From STRIPE_API_BASE (e.g. a local fake); undefined means api.stripe.com. */
  api: { host: string; port: number; protocol: 'http' | 'https' } | undefined;
  timeoutMs: number;
  maxNetworkRetries: number;
}

function stripeApiBase(raw: string | undefined): StripeSettings['api'] {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`STRIPE_API_BASE must be a URL, got "${raw}"`);
  }
  const protocol = url.protocol.slice(0, -1);
  if ((protocol !== 'http' && protocol !== 'https') || (url.pathname !== '/' && url.pathname !== '')) {
    throw new Error(`STRIPE_API_BASE must be http(s)://host[:port] without a path, got "${raw}"`);
  }
  return { host: url.hostname, port: Number(url.port || (protocol === 'https' ? 443 : 80)), protocol };
}

function payments(env: NodeJS.ProcessEnv): PaymentsConfig {
  const secretKey = env.STRIPE_SECRET_KEY;
  const webhookSecrets = (env.STRIPE_WEBHOOK_SECRET ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!secretKey) {
    // A webhook secret without a key means a half-configured Stripe: refuse rather than run the sandbox.
    if (webhookSecrets.length) throw new Error('STRIPE_WEBHOOK_SECRET is set but STRIPE_SECRET_KEY is not');
    return { provider: 'sandbox', stripe: undefined };
  }
  if (!webhookSecrets.length) throw new Error('STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set');
  return {
    provider: 'stripe',
    stripe: {
      secretKey,
      webhookSecrets,
      api: stripeApiBase(env.STRIPE_API_BASE),
      timeoutMs: int(env, 'STRIPE_TIMEOUT_MS', 10_000),
      maxNetworkRetries: int(env, 'STRIPE_MAX_NETWORK_RETRIES', 1),
    },
  };
}

export interface EmbeddingsSettings {
  /** The API base: `POST {url}/embeddings` with `{ model, input }`, e.g. https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** How long a search waits for its query's embedding before ranking without it. */
  timeoutMs: number;
}

/** Semantic search is on when EMBEDDINGS_URL is set (docs/architecture.md §8). */
function embeddings(env: NodeJS.ProcessEnv): EmbeddingsSettings | undefined {
  const raw = env.EMBEDDINGS_URL;
  if (!raw) return undefined;
  try {
    new URL(raw);
  } catch {
    throw new Error(`EMBEDDINGS_URL must be a URL, got "${raw}"`);
  }
  return {
    url: raw.replace(/\/+$/, ''),
    model: env.EMBEDDINGS_MODEL || 'text-embedding-3-small',
    apiKey: env.EMBEDDINGS_API_KEY || undefined,
    timeoutMs: int(env, 'EMBEDDINGS_TIMEOUT_MS', 2000),
  };
}

export interface LlmSettings {
  /** The API base: `POST {url}/chat/completions`, e.g. https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** How long a recommendation waits for the model before answering 504. */
  timeoutMs: number;
}

/** Dispute recommendations are on when LLM_URL is set; without it they answer 503 (never a made-up one). */
function llm(env: NodeJS.ProcessEnv): LlmSettings | undefined {
  const raw = env.LLM_URL;
  if (!raw) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    /* not a URL */
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`LLM_URL must be an http(s) URL, got "${raw}"`);
  const timeoutMs = int(env, 'LLM_TIMEOUT_MS', 30_000);
  if (timeoutMs < 1) throw new Error(`LLM_TIMEOUT_MS must be at least 1, got "${env.LLM_TIMEOUT_MS}"`);
  return { url: raw.replace(/\/+$/, ''), model: env.LLM_MODEL || 'gpt-4o-mini', apiKey: env.LLM_API_KEY || undefined, timeoutMs };
}

/**
 * PGlite's default shared_buffers is 128 MB, held in its WebAssembly heap for the life of the
 * process; 16 MB takes about 120 MB off the server's resident set. Its files still sit in the
 * operating system's page cache, so reads past the buffers cost a copy, not a disk read.
 */
const DEFAULT_PGLITE_SHARED_BUFFERS = '16MB';

/** A Postgres memory setting: a whole number with kB, MB or GB (at least 128kB, as Postgres requires). */
function memorySize(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)(kB|MB|GB)$/.exec(raw);
  const kb = match ? Number(match[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[match[2] as 'kB' | 'MB' | 'GB'] : 0;
  if (kb < 128) throw new Error(`${name} must be a size such as 16MB or 512kB (at least 128kB), got "${raw}"`);
  return raw;
}

/** A duration in ms where 0 means none, as Postgres's own time limits take it. */
function durationMs(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 0) throw new Error(`${name} must be a number of milliseconds, 0 for no limit, got "${env[name]}"`);
  return value;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 1) throw new Error(`${name} must be at least 1, got "${env[name]}"`);
  return value;
}

/**
 * TRUST_PROXY: unset or `false`, X-Forwarded-* is ignored (the client is the socket's peer);
 * `true`, every hop is believed; a number, that many hops; else a comma-separated list of proxy
 * addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8`).
 */
function trustProxy(raw: string | undefined): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new Error(
        `TRUST_PROXY must be true, false, a number of hops or a comma-separated list of addresses or CIDR ranges, got "${raw}"`,
      );
    }
  }
  return entries;
}

/** PUBLIC_URL makes the OAuth callback and the origin cookie-authenticated requests must come from. */
function publicUrl(raw: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    /* not a URL */
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new Error(`PUBLIC_URL must be an http(s) URL such as https://gigs.example.com, got "${raw}"`);
  return raw.replace(/\/$/, '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  const clientId = env.GITHUB_CLIENT_ID;
  const clientSecret = env.GITHUB_CLIENT_SECRET;
  if (Boolean(clientId) !== Boolean(clientSecret)) {
    throw new Error('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together');
  }
  const llmSettings = llm(env);
  return {
    port,
    host,
    publicUrl: publicUrl(env.PUBLIC_URL || `http://localhost:${port}`),
    nodeEnv: env.NODE_ENV || 'development',
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    pgliteSharedBuffers: memorySize(env, 'PGLITE_SHARED_BUFFERS', DEFAULT_PGLITE_SHARED_BUFFERS),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseTimeLimits: {
      statementTimeoutMs: durationMs(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000),
      idleInTransactionTimeoutMs: durationMs(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000),
    },
    sessionSecret: env.SESSION_SECRET || undefined,
    sessionTtlDays: int(env, 'SESSION_TTL_DAYS', 30),
    github:
      clientId && clientSecret
        ? {
            clientId,
            clientSecret,
            authorizeUrl: env.GITHUB_AUTHORIZE_URL || 'https://github.com/login/oauth/authorize',
            tokenUrl: env.GITHUB_TOKEN_URL || 'https://github.com/login/oauth/access_token',
            apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/$/, ''),
            timeoutMs: positiveInt(env, 'GITHUB_TIMEOUT_MS', 10_000),
          }
        : undefined,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    httpTimeouts: httpTimeouts(env, llmSettings),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    payments: payments(env),
    contractApprovalTtlMs: duration(env, 'CONTRACT_APPROVAL_TTL', '48h'),
    payoutDaySeconds: int(env, 'PAYOUT_DAY_SECONDS', 86_400),
    idempotencyLockSeconds: Math.max(1, Math.round(duration(env, 'IDEMPOTENCY_LOCK_TIMEOUT', '120') / 1000)),
    embeddings: embeddings(env),
    llm: llmSettings,
    sourcesFile: sourcesFile(env),
    rateLimit: rateLimit(env),
    redisUrl: redisUrl(env.REDIS_URL),
    devSignInUnsafeAllowRemote: flag(env, 'DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE'),
    webhooksAllowPrivateUrls: allowPrivateUrls(env, 'WEBHOOKS_ALLOW_PRIVATE_URLS', 'users could make the server reach its own network'),
    sourcesAllowPrivateUrls: allowPrivateUrls(
      env,
      'SOURCES_ALLOW_PRIVATE_URLS',
      'the server would read feeds from its own network; feeds in production are public',
    ),
    webhookRetryScale: webhookRetryScale(env.WEBHOOK_RETRY_SCALE),
    email: email(env),
    approvalRemindersMs: approvalReminders(env),
    emailRetryDelayMs: duration(env, 'EMAIL_RETRY_DELAY', '1m'),
  };
}

/** APPROVAL_REMINDERS: comma-separated durations before the approval deadline (`24h,1h`); `off` for none. */
function approvalReminders(env: NodeJS.ProcessEnv): number[] {
  const raw = (env.APPROVAL_REMINDERS ?? '').trim();
  if (raw === 'off') return [];
  const parts = (raw || '24h,1h')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length > 5) throw new Error(`APPROVAL_REMINDERS takes at most 5 durations, got "${raw}"`);
  const values = parts.map((p) => duration({ APPROVAL_REMINDERS: p }, 'APPROVAL_REMINDERS', p));
  if (values.some((v) => v < 1000)) throw new Error(`APPROVAL_REMINDERS must be durations of at least 1s, like 24h,1h, got "${raw}"`);
  return [...new Set(values)].sort((a, b) => b - a);
}

function webhookRetryScale(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1)
    throw new Error(`WEBHOOK_RETRY_SCALE must be a number above 0, at most 1, got "${raw}"`);
  return value;
}

/**
 * WEBHOOKS_ALLOW_PRIVATE_URLS and SOURCES_ALLOW_PRIVATE_URLS let webhooks, or the configured feeds,
 * be on this machine and its networks (src/outbound/guard.ts). In production that would let a URL
 * make the server reach its own network, so it is refused there.
 */
function allowPrivateUrls(env: NodeJS.ProcessEnv, name: string, danger: string): boolean {
  const allow = flag(env, name);
  if (allow && (env.NODE_ENV || 'development') === 'production') {
    throw new Error(`${name} must not be true when NODE_ENV=production: ${danger}`);
  }
  return allow;
}

/**
 * SOURCES_FILE when set (it must exist), else ./sources.json when it exists. Tests (NODE_ENV=test)
 * never pick up the default, so an operator's file cannot make them reach the network.
 */
function sourcesFile(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SOURCES_FILE;
  if (raw) {
    const file = path.resolve(raw);
    if (!fs.existsSync(file)) throw new Error(`SOURCES_FILE points to "${file}", which does not exist`);
    return file;
  }
  if ((env.NODE_ENV || 'development') === 'test') return undefined;
  const fallback = path.resolve('sources.json');
  return fs.existsSync(fallback) ? fallback : undefined;
}

/** `true`/`1` or `false`/`0`/unset; anything else is a mistake worth stopping for. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new Error(`${name} must be true or false, got "${env[name]}"`);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);
export const isLoopbackHost = (host: string): boolean => LOOPBACK_HOSTS.has(host) || host.startsWith('127.');

/**
 * The dev sign-in exists only for local use: no OAuth client, not production, and the server
 * listening on this machine only, unless DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE says otherwise.
 */
export function devSignInEnabled(config: Config): boolean {
  return !config.github && config.nodeEnv !== 'production' && (isLoopbackHost(config.host) || config.devSignInUnsafeAllowRemote);
}
