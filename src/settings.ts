// Every setting gigmarket reads from the environment, declared in one place: each one's name,
// default, meaning and how it parses. src/config.ts reads the server's through it, and
// `npm run docs:settings` (scripts/settings-table.ts) renders it as the tables of docs/guide/settings.md.
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
      'Serves `/metrics` on this port of `METRICS_HOST` instead of on the main port (which then has no `/metrics`); with `METRICS_TOKEN`, the token is asked there too.',
  },
  METRICS_HOST: {
    ...text('127.0.0.1'),
    description:
      'Interface the `METRICS_PORT` listener binds to: this machine only by default, whatever `HOST` is. Any other (`0.0.0.0` for a Prometheus elsewhere) needs `METRICS_TOKEN`, or the server does not start.',
  },
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
export type SettingValue<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['parse']>;

/** The value of one declared setting in `env`; throws, naming the variable, when its text does not parse. */
export function readSetting<N extends SettingName>(env: NodeJS.ProcessEnv, name: N): SettingValue<N> {
  return SETTINGS[name].parse(env[name], name) as SettingValue<N>;
}
