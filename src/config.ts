// Every setting gigmarket reads from the environment, in one place: SETTINGS declares each one's
// name, default, meaning and how it parses; loadConfig reads the server's through it, and
// `npm run docs:settings` renders it as the table in docs/guide/settings.md.
import fs from 'node:fs';
import path from 'node:path';
import {
  apiBase,
  commaList,
  duration,
  durationList,
  existingFile,
  flag,
  fraction,
  integer,
  mailbox,
  memorySize,
  onOff,
  optionalPort,
  optionalText,
  proxyTrust,
  secretToken,
  type SettingKind,
  smtpUrl,
  origins,
  text,
  trimmedText,
  url,
} from './setting-parsers.ts';

export interface DeclaredSetting extends SettingKind<unknown> {
  /** What it does, for the settings table (Markdown; links are relative to docs/guide/). */
  description: string;
  /** Who reads it, when not the server (loadConfig). */
  readBy?: 'mcp-stdio' | 'tests';
}

/** Links in the descriptions, as docs/guide/settings.md (where they are rendered) reaches the guides. */
const GUIDE = './';
const MUST_BE_AT_LEAST_1 = { min: 1 };
const RATE_LIMIT_AT_LEAST_1 = { min: 1, mustBe: 'at least 1 (RATE_LIMIT=off turns limits off)' };
const MS_OR_NO_LIMIT = { min: 0, mustBe: 'a number of milliseconds, 0 for no limit' };

/**
 * The table docs/guide/settings.md shows, in its order. HTTP time-outs: a whole request in 30 s
 * (a 5 MB upload needs about 1.4 Mbit/s), 60 s of silence, and Fastify's 72 s of keep-alive,
 * longer than the 60 s idle time-out of common load balancers, so the balancer, not the server,
 * closes an idle connection and never reuses a closing one.
 */
export const SETTINGS = {
  PORT: { ...integer(3000), description: 'Port to listen on.' },
  HOST: { ...text('127.0.0.1'), description: 'Interface to listen on (`0.0.0.0` for every interface).' },
  PUBLIC_URL: {
    ...url({
      protocols: ['http:', 'https:'],
      mustBe: 'an http(s) URL such as https://gigs.example.com',
      default: '`http://localhost:$PORT`',
    }),
    description:
      'The URL people and GitHub reach the server at: OAuth callbacks, the same-origin check for cookie-authenticated requests, links in logs. While the dev sign-in is on, anything but a loopback URL stops the server at start (see [Security notes for operators](#security-notes-for-operators)).',
  },
  NODE_ENV: { ...text('development'), description: '`production` turns off the dev sign-in and makes session cookies `Secure`.' },
  DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: {
    ...flag(),
    description:
      'The dev sign-in (anyone can become any user) exists only while `HOST` is a loopback address, refuses to start beside a `PUBLIC_URL` beyond loopback, and answers only requests made on this machine that no proxy forwarded; `true` lifts all three limits (and warns at start). Unsafe anywhere but a private test network.',
  },
  DATA_DIR: { ...text('./data'), description: 'Where embedded PGlite keeps its files (used only without `DATABASE_URL`).' },
  PGLITE_SHARED_BUFFERS: {
    // PGlite's own default holds 128 MB in its WebAssembly heap for the life of the process; its
    // files stay in the operating system's page cache, so reads past the buffers cost a copy, not a disk read.
    ...memorySize('16MB'),
    description:
      "Embedded PGlite's `shared_buffers` (`kB`, `MB` or `GB`, at least `128kB`). PGlite's own default, 128MB, costs about 120 MB more resident memory; raise it for a large embedded database read hard (see [Memory](../performance.md#memory-benchstart) in docs/performance.md).",
  },
  DATABASE_URL: {
    ...optionalText(),
    description: 'A server Postgres (15+), e.g. `postgres://user:pass@host:5432/gigmarket`. Unset: embedded PGlite under `DATA_DIR`.',
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    ...integer(30_000, MS_OR_NO_LIMIT),
    description:
      "On a server Postgres, the longest any one statement of the app may run (Postgres's `statement_timeout` on each connection of its pool): a statement over it is cancelled and its request answers `500`. `0`: no limit. Migrations and pg-boss's own connections run without it.",
  },
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: {
    ...integer(60_000, MS_OR_NO_LIMIT),
    description:
      'On a server Postgres, how long a transaction may sit idle before Postgres ends its session (`idle_in_transaction_session_timeout`), so that one left open cannot hold its locks for good. `0`: no limit.',
  },
  DATABASE_POOLER: {
    default: '`none`',
    parse: (raw: string | undefined, name: string) => {
      const value = raw?.trim() || 'none';
      if (value !== 'none' && value !== 'transaction') throw new Error(`${name} must be none or transaction, got "${raw}"`);
      return value;
    },
    description:
      "`transaction`: `DATABASE_URL` goes through a connection pooler in transaction mode (PgBouncer's `pool_mode = transaction`). The app's pool then prepares no statements and sends no settings at connect (set `jit`, `statement_timeout` and `idle_in_transaction_session_timeout` on the database instead), and LISTEN and migrations use `DATABASE_DIRECT_URL`, which it requires. Undeclared, such a pooler stops the server at start, saying so. See [Through a connection pooler](production.md#through-a-connection-pooler).",
  },
  DATABASE_DIRECT_URL: {
    ...optionalText(),
    description:
      "With `DATABASE_POOLER=transaction`: the same database reached directly, without the pooler, for what lives on one connection: LISTEN (key revocations, the event relay, MCP messages) and the migrations' lock.",
  },
  SESSION_SECRET: {
    ...optionalText('generated once, stored in the database'),
    description: 'Signs session cookies. Set it to rotate it, or to share it explicitly.',
  },
  SESSION_TTL_DAYS: { ...integer(30), description: 'How long a browser session lasts.' },
  GITHUB_CLIENT_ID: {
    ...optionalText(),
    description: 'GitHub OAuth app client id; with the secret, enables GitHub sign-in (and disables the dev sign-in).',
  },
  GITHUB_CLIENT_SECRET: { ...optionalText(), description: 'GitHub OAuth app client secret; set both or neither.' },
  GITHUB_AUTHORIZE_URL: {
    ...text('https://github.com/login/oauth/authorize'),
    description: "GitHub's authorize endpoint (tests point it at a local fake).",
  },
  GITHUB_TOKEN_URL: { ...text('https://github.com/login/oauth/access_token'), description: "GitHub's token endpoint." },
  GITHUB_API_URL: { ...text('https://api.github.com'), description: "GitHub's API, for the signed-in user's login." },
  GITHUB_TIMEOUT_MS: {
    ...integer(10_000, MUST_BE_AT_LEAST_1),
    description:
      "The longest wait for each of GitHub's answers during a sign-in (the token's: for it to start, then again for its body; the user's: whole). Past it, or past 64 KiB for the token and 256 KiB for the user, of which no more is read, the sign-in fails with `500`.",
  },
  BODY_LIMIT_BYTES: {
    ...integer(1024 * 1024, { note: '1 MiB' }),
    description: 'Largest JSON request body; larger gets `413 PAYLOAD_TOO_LARGE`.',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    ...integer(30_000, MUST_BE_AT_LEAST_1),
    description:
      'The longest a request may take to arrive, headers and body together, however steadily its bytes come (an upload too: 5 MB in 30 s needs about 1.4 Mbit/s); past it, `408` with the error envelope and the connection closed.',
  },
  HTTP_CONNECTION_TIMEOUT_MS: {
    ...integer(60_000, MUST_BE_AT_LEAST_1),
    description:
      "A connection with no byte in or out for this long is closed: a client that stops sending mid-request, or stops reading its answer. Must be longer than `LLM_TIMEOUT_MS` (a recommendation waits on the model in silence). `/mcp` responses may stay silent 11 minutes, while a tool call waits for the owner's answer.",
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    ...integer(72_000, MUST_BE_AT_LEAST_1),
    description:
      "How long an idle kept-alive connection waits for its next request. Behind a load balancer, keep it longer than the balancer's idle time-out (often 60 s), so the balancer closes first.",
  },
  TRUST_PROXY: {
    ...proxyTrust(),
    description:
      "Whose `X-Forwarded-For`/`-Proto`/`-Host` to believe: unset, nobody's (the client is the socket's peer); `true`, every hop; a number, that many hops; or a comma-separated list of proxy addresses or CIDR ranges (`127.0.0.1,10.0.0.0/8`). Set it behind a reverse proxy, to the number of proxies (`1` for one nginx) or their addresses: with `true`, a client behind a proxy that appends to `X-Forwarded-For` chooses its own address, and the server warns at start (see [Security notes for operators](#security-notes-for-operators)).",
  },
  LOG_LEVEL: {
    ...text('info'),
    description:
      'pino log level (`debug`, `info`, `warn`, `error`, `silent`). At `info`, one line per answered request (`request completed`: method, URL, client address, status, `responseTime` in ms); at `debug`, also one as each arrives (`incoming request`).',
  },
  METRICS_TOKEN: {
    ...secretToken(16),
    description:
      'Serves Prometheus metrics at `/metrics` on the main port to requests bearing `Authorization: Bearer <this token>` (at least 16 characters; others get `401`). With neither this nor `METRICS_PORT`, no metrics are served (the start-up log says so). See [Metrics and health](production.md#metrics-and-health).',
  },
  METRICS_PORT: {
    ...optionalPort(),
    description:
      'Serves `/metrics` on this port of `METRICS_HOST` instead of on the main port (which then has no `/metrics`); with `METRICS_TOKEN`, the token is asked there too. Keep the port off the public network.',
  },
  METRICS_HOST: { ...optionalText('`$HOST`'), description: 'Interface the `METRICS_PORT` listener binds to.' },
  SHUTDOWN_GRACE_MS: {
    ...integer(15_000, MUST_BE_AT_LEAST_1),
    description:
      'On SIGTERM or SIGINT, how long the requests in flight and the running jobs have to finish (after `SHUTDOWN_DELAY_MS`) before the process exits anyway, with status 1.',
  },
  SHUTDOWN_DELAY_MS: {
    ...integer(0, { min: 0 }),
    description:
      'On SIGTERM, how long the process keeps accepting connections while `/api/health/ready` answers `503`, before it stops accepting: time for a balancer that polls readiness to take it out of rotation. `0`: it stops accepting at once.',
  },
  STRIPE_SECRET_KEY: {
    ...optionalText(),
    description: 'Stripe secret key; set, payments go through Stripe, unset, through the local sandbox provider.',
  },
  STRIPE_WEBHOOK_SECRET: {
    ...commaList(),
    description:
      'Stripe webhook signing secret(s), comma-separated (the platform and Connect endpoints have their own); required with `STRIPE_SECRET_KEY`.',
  },
  STRIPE_API_BASE: {
    ...apiBase('`https://api.stripe.com`'),
    description: 'Where the Stripe SDK sends requests, `http(s)://host[:port]` (tests use a local fake).',
  },
  STRIPE_TIMEOUT_MS: { ...integer(10_000), description: 'Timeout of one Stripe API call.' },
  STRIPE_MAX_NETWORK_RETRIES: {
    ...integer(1),
    description: 'Retries of a Stripe call after a network error (with Stripe idempotency keys).',
  },
  CONTRACT_APPROVAL_TTL: {
    ...duration('48h'),
    description: 'How long both owners have to approve a contract before it expires (`30m`, `48h`, `2d`, seconds).',
  },
  IDEMPOTENCY_LOCK_TIMEOUT: {
    ...duration('120'),
    description:
      "How long a request with an `Idempotency-Key` holds the key (`2m`, seconds). A retry meanwhile gets `409` with `Retry-After`; once the time is up (the first attempt's server died), a retry takes the key over and resumes from what the first attempt recorded. Keep it above the longest outside call (the model, the payment provider's retries).",
  },
  PAYOUT_DAY_SECONDS: {
    ...integer(86_400),
    description: 'The length of one day of `payout_delay_days`, in seconds (shorten it for a demo).',
  },
  EMBEDDINGS_URL: {
    ...url({ mustBe: 'a URL' }),
    description: 'An OpenAI-compatible embeddings endpoint (`POST {url}/embeddings`); set, discovery adds semantic similarity.',
  },
  EMBEDDINGS_MODEL: { ...text('text-embedding-3-small'), description: 'The embeddings model to ask for.' },
  EMBEDDINGS_API_KEY: { ...optionalText(), description: 'Bearer token for the embeddings endpoint.' },
  EMBEDDINGS_TIMEOUT_MS: {
    ...integer(2000),
    description:
      'Timeout of one embeddings call, its answer read included; on time-out (or an answer over 256 KiB per text embedded, of which no more is read), results come without the semantic component and say so.',
  },
  LLM_URL: {
    ...url({ protocols: ['http:', 'https:'], mustBe: 'an http(s) URL' }),
    description: `An OpenAI-compatible chat-completions endpoint (\`POST {url}/chat/completions\`), e.g. \`https://api.openai.com/v1\`; set, the parties of a dispute can ask it for an advisory recommendation. Unset: that operation answers \`503 RECOMMENDATION_UNAVAILABLE\`. See [Disputes](${GUIDE}disputes.md#the-recommendation-is-advice-never-a-decision).`,
  },
  LLM_MODEL: { ...text('gpt-4o-mini'), description: 'The model to ask (it must support `response_format` `json_schema`).' },
  LLM_API_KEY: { ...optionalText(), description: 'Bearer token for the chat-completions endpoint; sent there only.' },
  LLM_TIMEOUT_MS: {
    ...integer(30_000, MUST_BE_AT_LEAST_1),
    description: 'How long a recommendation waits for the model; past it, `504 RECOMMENDATION_TIMEOUT` and nothing changes.',
  },
  SOURCES_FILE: {
    ...existingFile('`./sources.json` if it exists'),
    description: 'The external gig sources to pull (JSON; see `sources.example.json`). Set, the file must exist.',
  },
  RATE_LIMIT: {
    ...onOff(),
    description: `\`off\` turns every rate limit off (no \`429\`, no RateLimit headers). See [Rate limits](${GUIDE}rate-limits.md#rate-limits).`,
  },
  RATE_LIMIT_PER_MINUTE: {
    ...integer(600, RATE_LIMIT_AT_LEAST_1),
    description: 'Units one credential (an API key, or a browser session) may spend per window.',
  },
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: {
    ...integer(60, RATE_LIMIT_AT_LEAST_1),
    description:
      'Units one client address (`request.ip`, as `TRUST_PROXY` decides; IPv6 by /64) may spend per window on requests without credentials and on requests whose credentials are refused.',
  },
  RATE_LIMIT_WINDOW: {
    ...duration('1m', { atLeastMs: 1000, mustBe: 'at least 1s' }),
    description: 'The fixed window both limits count over (`2s`, `1m`, `1h`); the two `_PER_MINUTE` limits are per this window.',
  },
  REDIS_URL: {
    ...url({ protocols: ['redis:', 'rediss:'], mustBe: 'a redis:// or rediss:// URL' }),
    description:
      'A Redis (`redis://[:password@]host:6379[/db]`, or `rediss://`) for the rate-limit counters, so that several server processes share them. Unset: each process counts in memory. Set but unreachable at start: the server does not start.',
  },
  OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE_URLS: {
    ...flag(),
    description:
      "`true` lets an OAuth client's id be a metadata document URL on loopback, private or CGNAT addresses (it must still be https), for local development and tests. Refused when `NODE_ENV=production`.",
  },
  RATE_LIMIT_PREFIX: { ...text('gigmarket:ratelimit:'), description: "Prefix of the counters' keys in Redis." },
  SOURCES_ALLOW_PRIVATE_URLS: {
    ...flag(),
    description: `\`true\` lets the configured feeds be on loopback, private or CGNAT addresses, for local development and tests; it covers each feed's own origin only (a redirect elsewhere must still lead to a public address), never link-local (cloud metadata). Refused when \`NODE_ENV=production\`. See [External gigs](${GUIDE}discovery.md#external-gigs).`,
  },
  WEBHOOKS_ALLOW_PRIVATE_URLS: {
    ...flag(),
    description: `\`true\` lets webhooks go to loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT addresses, for local development and tests; never link-local (cloud metadata). Refused when \`NODE_ENV=production\`. See [Events and webhooks](${GUIDE}events-and-webhooks.md#where-webhooks-may-go).`,
  },
  WEBHOOK_LOOKUP_TIMEOUT_MS: {
    ...integer(5_000, MUST_BE_AT_LEAST_1),
    description:
      "The longest wait for the DNS answer of a webhook endpoint's host: when the endpoint is registered (past it, `400 VALIDATION_FAILED` on `url`), and before every delivery and test delivery (past it, the attempt fails and is retried). The host is the endpoint owner's choice, and so is its DNS server.",
  },
  WEBHOOK_RETRY_SCALE: {
    ...fraction(1),
    description: `Multiplies the webhook retry schedule and the 5 days after which a failing endpoint is disabled (above 0, at most 1): \`0.001\` turns 5 min into 0.3 s and 5 days into 7 min, for tests and demos. A receiver's \`Retry-After\` is honoured as it is. See [Events and webhooks](${GUIDE}events-and-webhooks.md#deliveries).`,
  },
  SMTP_URL: {
    ...smtpUrl(),
    description: `Where notification emails go out: \`smtp://user:password@host:587\` (STARTTLS; required before a password goes to a host other than loopback) or \`smtps://user:password@host\` (TLS from the start, port 465 by default); percent-encode special characters in the user and password. Unset: email is off. See [Email](${GUIDE}notifications.md#email-delivery-and-reminders).`,
  },
  MAIL_FROM: {
    ...mailbox(),
    description: 'The sender, `noreply@example.com` or `gigmarket <noreply@example.com>`; required with `SMTP_URL`.',
  },
  SMTP_TIMEOUT_MS: {
    ...integer(10_000, MUST_BE_AT_LEAST_1),
    description:
      'The longest wait for the SMTP server to accept the connection, to greet, and to answer each step after; past it the send fails, retryable.',
  },
  EMAIL_RETRY_DELAY: {
    ...duration('1m'),
    description: `The first wait before a notification email is tried again after a retryable failure; it doubles each time (at most 1 h), five retries. See [Notifications](${GUIDE}notifications.md).`,
  },
  APPROVAL_REMINDERS: {
    ...durationList('24h,1h', 5),
    description:
      'When owners who have not approved a contract are reminded, before its approval deadline: up to 5 comma-separated durations, or `off`.',
  },
  MCP_ALLOWED_ORIGINS: {
    ...origins(),
    description:
      "Web origins besides `PUBLIC_URL`'s whose pages may call `/mcp` from a browser (comma-separated, e.g. `https://agent.example.com`). A request to `/mcp` with an `Origin` header naming any other is refused with `403` before it is authenticated (DNS-rebinding protection, as the MCP transport specification asks); requests without `Origin` (agents, servers) are not affected.",
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    ...url({ protocols: ['http:', 'https:'], mustBe: 'an http(s) URL such as http://collector:4318' }),
    description: `An OpenTelemetry collector's OTLP/HTTP endpoint (\`http://collector:4318\`): set, the server sends traces there (\`{url}/v1/traces\`, JSON): each request, its SQL statements and transactions, and the webhook deliveries of the events it wrote, in one trace. Unset: no tracing, and none of OpenTelemetry is loaded. See [Traces](${GUIDE}production.md#traces).`,
  },
  OTEL_SERVICE_NAME: { ...text('gigmarket'), description: "The traces' `service.name`." },
  GIGMARKET_URL: {
    ...trimmedText(),
    readBy: 'mcp-stdio',
    description: 'The gigmarket server the stdio MCP server calls, e.g. `http://localhost:3000`; required there.',
  },
  GIGMARKET_API_KEY: { ...trimmedText(), readBy: 'mcp-stdio', description: 'The API key it calls with; required there.' },
  GIGMARKET_CRASH_AT: {
    ...optionalText(),
    readBy: 'tests',
    description:
      'A named place (`src/crash-points.ts`) where the process kills itself, as a power cut would, to prove that a retry after a crash there has one effect; `<place>:<key>` there only on a request with that Idempotency-Key. Ignored when `NODE_ENV=production`.',
  },
} satisfies Record<string, DeclaredSetting>;

export type SettingName = keyof typeof SETTINGS;
type SettingValue<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['parse']>;

/** The value of one declared setting in `env`; throws, naming the variable, when its text does not parse. */
export function readSetting<N extends SettingName>(env: NodeJS.ProcessEnv, name: N): SettingValue<N> {
  return SETTINGS[name].parse(env[name], name) as SettingValue<N>;
}

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
    metrics: metrics(read, port, host),
    shutdown: { delayMs: read('SHUTDOWN_DELAY_MS'), graceMs: read('SHUTDOWN_GRACE_MS') },
  };
}

/** Metrics only where the operator asked: a port of their own, or the main port behind a token. */
function metrics(read: Read, port: number, host: string): MetricsSettings | undefined {
  const token = read('METRICS_TOKEN');
  const metricsPort = read('METRICS_PORT');
  if (metricsPort === undefined && token === undefined) return undefined;
  if (metricsPort === port)
    throw new Error(`METRICS_PORT must differ from PORT (${port}); to serve /metrics on the main port, set METRICS_TOKEN alone`);
  return { port: metricsPort, host: read('METRICS_HOST') ?? host, token };
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
