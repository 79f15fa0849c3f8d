// The server's configuration: loadConfig reads the settings src/settings.ts declares, checks the
// ones that only make sense together, and shapes them for the code that uses them.
import fs from 'node:fs';
import path from 'node:path';
import { readSetting, type SettingName, type SettingValue } from './settings.ts';

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
  /** DATABASE_DIRECT_URL, set only with DATABASE_POOLER=transaction: DATABASE_URL goes through a transaction pooler, LISTEN and migrations connect here. */
  databaseDirectUrl: string | undefined;
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
  /** OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: where traces go (src/tracing/); undefined: no tracing. */
  otel: OtelSettings | undefined;
  /** DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: the dev sign-in also when listening beyond loopback, beside a PUBLIC_URL beyond it, and for requests from elsewhere. */
  devSignInUnsafeAllowRemote: boolean;
  /** WEBHOOKS_ALLOW_PRIVATE_URLS: webhooks may go to loopback and private networks (development and tests only). */
  webhooksAllowPrivateUrls: boolean;
  /** OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE_URLS: OAuth client metadata documents may be on loopback and private networks (development and tests only). */
  oauthClientDocumentsAllowPrivateUrls: boolean;
  /** MCP_ALLOWED_ORIGINS: origins besides PUBLIC_URL's that may call /mcp from a browser. */
  mcpAllowedOrigins: string[];
  /** SOURCES_ALLOW_PRIVATE_URLS: external feeds may be on loopback and private networks (development and tests only). */
  sourcesAllowPrivateUrls: boolean;
  /**
   * WEBHOOK_RETRY_SCALE: multiplies the webhook retry schedule and the 5 days after which a failing
   * endpoint is disabled (default 1; e.g. 0.001 turns 5 min into 0.3 s, for tests and demos).
   */
  webhookRetryScale: number;
  /** WEBHOOK_LOOKUP_TIMEOUT_MS: the longest wait for the DNS answer of a webhook endpoint's host. */
  webhookLookupTimeoutMs: number;
  /** METRICS_TOKEN, METRICS_PORT, METRICS_HOST: where Prometheus metrics are served; undefined: nowhere. */
  metrics: MetricsSettings | undefined;
  /** SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS: how a SIGTERM drains the process (src/shutdown.ts). */
  shutdown: { delayMs: number; graceMs: number };
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

export interface MetricsSettings {
  /** METRICS_PORT: a listener of its own; undefined: `/metrics` on the main port, which then needs the token. */
  port: number | undefined;
  /** METRICS_HOST: where that listener binds, loopback unless set; beyond it only with the token. */
  host: string;
  /** METRICS_TOKEN: the bearer token `/metrics` asks for; undefined only with a port of its own. */
  token: string | undefined;
}

export interface HttpTimeouts {
  /** HTTP_REQUEST_TIMEOUT_MS: a request's headers and body must all have arrived within this (else 408). */
  requestMs: number;
  /** HTTP_CONNECTION_TIMEOUT_MS: a connection with no byte in or out for this long is closed, mid-request or mid-response. */
  connectionMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: how long an idle kept-alive connection waits for its next request. */
  keepAliveMs: number;
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

export interface EmbeddingsSettings {
  /** The API base: `POST {url}/embeddings` with `{ model, input }`, e.g. https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** How long a search waits for its query's embedding before ranking without it. */
  timeoutMs: number;
}

export interface OtelSettings {
  /** The collector's OTLP/HTTP base URL, without a trailing slash: spans go to `{endpoint}/v1/traces`. */
  endpoint: string;
  serviceName: string;
}

export interface LlmSettings {
  /** The API base: `POST {url}/chat/completions`, e.g. https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey: string | undefined;
  /** How long a recommendation waits for the model before answering 504. */
  timeoutMs: number;
}

type Read = <N extends SettingName>(name: N) => SettingValue<N>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read: Read = (name) => readSetting(env, name);
  const port = read('PORT');
  const host = read('HOST');
  const client = githubClient(read);
  const llmSettings = llm(read);
  const nodeEnv = read('NODE_ENV');
  return {
    port,
    host,
    // Unset, this port's URL on localhost, checked as a set one is.
    publicUrl: readSetting({ PUBLIC_URL: env.PUBLIC_URL || `http://localhost:${port}` }, 'PUBLIC_URL')!.replace(/\/$/, ''),
    nodeEnv,
    dataDir: path.resolve(read('DATA_DIR')),
    pgliteSharedBuffers: read('PGLITE_SHARED_BUFFERS'),
    databaseUrl: read('DATABASE_URL'),
    databaseTimeLimits: {
      statementTimeoutMs: read('DATABASE_STATEMENT_TIMEOUT_MS'),
      idleInTransactionTimeoutMs: read('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS'),
    },
    databaseDirectUrl: databaseDirectUrl(read),
    sessionSecret: read('SESSION_SECRET'),
    sessionTtlDays: read('SESSION_TTL_DAYS'),
    github: client && github(read, client),
    bodyLimitBytes: read('BODY_LIMIT_BYTES'),
    httpTimeouts: httpTimeouts(read, llmSettings),
    trustProxy: read('TRUST_PROXY'),
    logLevel: read('LOG_LEVEL'),
    payments: payments(read),
    contractApprovalTtlMs: read('CONTRACT_APPROVAL_TTL'),
    payoutDaySeconds: read('PAYOUT_DAY_SECONDS'),
    idempotencyLockSeconds: Math.max(1, Math.round(read('IDEMPOTENCY_LOCK_TIMEOUT') / 1000)),
    embeddings: embeddings(read),
    llm: llmSettings,
    sourcesFile: read('SOURCES_FILE') ?? defaultSourcesFile(nodeEnv),
    rateLimit: rateLimit(read),
    redisUrl: read('REDIS_URL'),
    otel: otel(read),
    devSignInUnsafeAllowRemote: read('DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE'),
    webhooksAllowPrivateUrls: notInProduction(read, 'WEBHOOKS_ALLOW_PRIVATE_URLS', 'users could make the server reach its own network'),
    mcpAllowedOrigins: read('MCP_ALLOWED_ORIGINS'),
    oauthClientDocumentsAllowPrivateUrls: notInProduction(
      read,
      'OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE_URLS',
      'a client id could make the server reach its own network',
    ),
    sourcesAllowPrivateUrls: notInProduction(
      read,
      'SOURCES_ALLOW_PRIVATE_URLS',
      'the server would read feeds from its own network; feeds in production are public',
    ),
    webhookRetryScale: read('WEBHOOK_RETRY_SCALE'),
    webhookLookupTimeoutMs: read('WEBHOOK_LOOKUP_TIMEOUT_MS'),
    email: email(read),
    approvalRemindersMs: read('APPROVAL_REMINDERS'),
    emailRetryDelayMs: read('EMAIL_RETRY_DELAY'),
    metrics: metrics(read, port),
    shutdown: { delayMs: read('SHUTDOWN_DELAY_MS'), graceMs: read('SHUTDOWN_GRACE_MS') },
  };
}

/** Metrics only where the operator asked: a port of their own, or the main port behind a token. */
function metrics(read: Read, port: number): MetricsSettings | undefined {
  const token = read('METRICS_TOKEN');
  const metricsPort = read('METRICS_PORT');
  if (metricsPort === undefined && token === undefined) return undefined;
  if (metricsPort === port)
    throw new Error(`METRICS_PORT must differ from PORT (${port}); to serve /metrics on the main port, set METRICS_TOKEN alone`);
  // Not HOST's: a server open to the world must not open its metrics to it unasked.
  const host = read('METRICS_HOST');
  if (metricsPort !== undefined && token === undefined && !isLoopbackHost(host)) {
    throw new Error(
      `METRICS_HOST (${host}) is not this machine and METRICS_TOKEN is not set: /metrics on METRICS_PORT would answer anyone who reaches it; set METRICS_TOKEN (Prometheus sends it as a bearer token), or leave METRICS_HOST at 127.0.0.1`,
    );
  }
  return { port: metricsPort, host, token };
}

/** DATABASE_DIRECT_URL when DATABASE_URL goes through a transaction pooler (DATABASE_POOLER), which needs it; else undefined. */
function databaseDirectUrl(read: Read): string | undefined {
  const pooled = read('DATABASE_POOLER') === 'transaction';
  const direct = read('DATABASE_DIRECT_URL');
  if (pooled && !read('DATABASE_URL')) throw new Error('DATABASE_POOLER=transaction needs DATABASE_URL (the pooler)');
  if (pooled && !direct) {
    throw new Error(
      'DATABASE_POOLER=transaction needs DATABASE_DIRECT_URL: the same database without the pooler, for LISTEN and migrations',
    );
  }
  if (!pooled && direct)
    throw new Error(
      'DATABASE_DIRECT_URL is read only with DATABASE_POOLER=transaction (DATABASE_URL through a pooler in transaction mode)',
    );
  return pooled ? direct : undefined;
}

/** GitHub sign-in is on when both the client id and secret are set. */
function githubClient(read: Read): { clientId: string; clientSecret: string } | undefined {
  const clientId = read('GITHUB_CLIENT_ID');
  const clientSecret = read('GITHUB_CLIENT_SECRET');
  if (Boolean(clientId) !== Boolean(clientSecret)) throw new Error('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together');
  return clientId && clientSecret ? { clientId, clientSecret } : undefined;
}

/** The rest of GITHUB_*, read only when sign-in is on. */
function github(read: Read, client: { clientId: string; clientSecret: string }): Config['github'] {
  return {
    ...client,
    authorizeUrl: read('GITHUB_AUTHORIZE_URL'),
    tokenUrl: read('GITHUB_TOKEN_URL'),
    apiUrl: read('GITHUB_API_URL').replace(/\/$/, ''),
    timeoutMs: read('GITHUB_TIMEOUT_MS'),
  };
}

function httpTimeouts(read: Read, llmSettings: LlmSettings | undefined): HttpTimeouts {
  const timeouts = {
    requestMs: read('HTTP_REQUEST_TIMEOUT_MS'),
    connectionMs: read('HTTP_CONNECTION_TIMEOUT_MS'),
    keepAliveMs: read('HTTP_KEEP_ALIVE_TIMEOUT_MS'),
  };
  // The connection of a recommendation is silent while the model thinks.
  if (llmSettings && llmSettings.timeoutMs >= timeouts.connectionMs) {
    throw new Error(
      `HTTP_CONNECTION_TIMEOUT_MS (${timeouts.connectionMs}) must be longer than LLM_TIMEOUT_MS (${llmSettings.timeoutMs}): a recommendation's connection is silent while the model answers`,
    );
  }
  return timeouts;
}

/** RATE_LIMIT=off turns rate limits off; otherwise the limits, counted per RATE_LIMIT_WINDOW. */
function rateLimit(read: Read): RateLimitSettings | undefined {
  if (!read('RATE_LIMIT')) return undefined;
  const windowMs = read('RATE_LIMIT_WINDOW');
  return {
    perCredential: read('RATE_LIMIT_PER_MINUTE'),
    anonymous: read('RATE_LIMIT_ANONYMOUS_PER_MINUTE'),
    windowMs,
    keyPrefix: read('RATE_LIMIT_PREFIX'),
  };
}

/** Email is on when SMTP_URL is set; it then needs MAIL_FROM. No message ever shows the password. */
function email(read: Read): EmailSettings | undefined {
  const server = read('SMTP_URL');
  if (!server) return undefined;
  const from = read('MAIL_FROM');
  if (!from) throw new Error('MAIL_FROM is required when SMTP_URL is set: the sender, such as "gigmarket <noreply@example.com>"');
  const { host, port, secure, auth } = server;
  return {
    host,
    port,
    secure,
    requireTls: !secure && Boolean(auth) && !isLoopbackHost(host),
    auth,
    from,
    timeoutMs: read('SMTP_TIMEOUT_MS'),
  };
}

/** stripe when STRIPE_SECRET_KEY is set, else the local sandbox; the rest of STRIPE_* only with the key. */
function payments(read: Read): PaymentsConfig {
  const secretKey = read('STRIPE_SECRET_KEY');
  const webhookSecrets = read('STRIPE_WEBHOOK_SECRET');
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
      api: read('STRIPE_API_BASE'),
      timeoutMs: read('STRIPE_TIMEOUT_MS'),
      maxNetworkRetries: read('STRIPE_MAX_NETWORK_RETRIES'),
    },
  };
}

/** Semantic search is on when EMBEDDINGS_URL is set (docs/architecture.md §8). */
function embeddings(read: Read): EmbeddingsSettings | undefined {
  const base = read('EMBEDDINGS_URL');
  if (!base) return undefined;
  return {
    url: base.replace(/\/+$/, ''),
    model: read('EMBEDDINGS_MODEL'),
    apiKey: read('EMBEDDINGS_API_KEY'),
    timeoutMs: read('EMBEDDINGS_TIMEOUT_MS'),
  };
}

/** Dispute recommendations are on when LLM_URL is set; without it they answer 503 (never a made-up one). */
function llm(read: Read): LlmSettings | undefined {
  const base = read('LLM_URL');
  if (!base) return undefined;
  const timeoutMs = read('LLM_TIMEOUT_MS');
  return { url: base.replace(/\/+$/, ''), model: read('LLM_MODEL'), apiKey: read('LLM_API_KEY'), timeoutMs };
}

/** Traces are on when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/tracing/). */
function otel(read: Read): OtelSettings | undefined {
  const endpoint = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  return endpoint ? { endpoint: endpoint.replace(/\/+$/, ''), serviceName: read('OTEL_SERVICE_NAME') } : undefined;
}

/**
 * WEBHOOKS_ALLOW_PRIVATE_URLS and SOURCES_ALLOW_PRIVATE_URLS let webhooks, or the configured feeds,
 * be on this machine and its networks (src/outbound/guard.ts). In production that would let a URL
 * make the server reach its own network, so it is refused there.
 */
function notInProduction(
  read: Read,
  name: 'WEBHOOKS_ALLOW_PRIVATE_URLS' | 'SOURCES_ALLOW_PRIVATE_URLS' | 'OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE_URLS',
  danger: string,
): boolean {
  const allow = read(name);
  if (allow && read('NODE_ENV') === 'production') throw new Error(`${name} must not be true when NODE_ENV=production: ${danger}`);
  return allow;
}

/** Without SOURCES_FILE, ./sources.json when it exists; never in tests, so an operator's file cannot make them reach the network. */
function defaultSourcesFile(nodeEnv: string): string | undefined {
  if (nodeEnv === 'test') return undefined;
  const fallback = path.resolve('sources.json');
  return fs.existsSync(fallback) ? fallback : undefined;
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
