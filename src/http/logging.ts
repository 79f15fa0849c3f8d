// The server's pino options: no credential ever reaches a log line (docs/architecture.md §3).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import sonicBoom, { type SonicBoom } from 'sonic-boom';

// sonic-boom is CommonJS: its default export is the class its types name SonicBoom.
const SonicBoomStream = sonicBoom as unknown as typeof SonicBoom;

/**
 * Query parameters that carry a secret in a browser route's URL: GitHub's sign-in code and state
 * on the OAuth callback, the sandbox pages' onboarding token and payment client secret.
 */
const SECRET_QUERY_PARAMS = ['code', 'state', 'token', 'client_secret'];

/** The URL as logged: the values of secret query parameters replaced, the rest as it came. */
function loggedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      return SECRET_QUERY_PARAMS.includes(name) ? `${name}=[Redacted]` : pair;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}

export function loggerOptions(level: string) {
  return {
    level,
    // No `redact`: a request reaches a line only through the `req` serializer below, which pino
    // applies to every `req` key and which writes no headers, so paths such as
    // req.headers.authorization cannot exist. Redaction still parsed its paths and walked each
    // line's object, allocating on every request (bench:pipeline). tests/operations/server-process.test.ts
    // holds the log to containing no credential.
    serializers: {
      // Fastify's own request serializer, with the URL's secrets taken out.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggedUrl(request.url),
        version: request.headers?.['accept-version'],
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}

/** How long a line may wait for others to go out with. */
export const LOG_WRITE_INTERVAL_MS = 20;
/** Past this many characters waiting (not bytes: a bound, where exactness does not matter), they go out at once. */
const LOG_BATCH_CHARS = 64 * 1024;

/**
 * Where the server logs: standard output, written asynchronously with a bounded buffer. A reader
 * that stops reading (a log shipper that hung, a pipe nobody drains) must never stop the server:
 * a synchronous write to a full pipe blocks the event loop, shutdown included. So writes go
 * through the thread pool, and beyond 16 MiB waiting, lines are dropped. SonicBoom itself, not
 * pino.destination(), which would flush synchronously on exit and hang there instead.
 *
 * Lines are gathered and go out together, at most LOG_WRITE_INTERVAL_MS after the first of them
 * (or at once past LOG_BATCH_CHARS). Each write is a hand-off to the thread pool and back, whose
 * CPU cost a batch of lines shares; line by line, that was the access log's largest cost under
 * load (docs/performance.md, Request pipeline). Gathering only the lines of one event-loop turn
 * still wrote one batch per few requests. The price: a line reaches the log up to 20 ms late, and
 * a process killed outright (SIGKILL) loses those 20 ms; every other way out (signals, a crash)
 * flushes first (src/server.ts).
 */
export class LogDestination {
  readonly #out: SonicBoom;
  readonly #intervalMs: number;
  readonly #batchChars: number;
  #pending = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(out: SonicBoom, options: { intervalMs?: number; batchChars?: number } = {}) {
    this.#out = out;
    this.#intervalMs = options.intervalMs ?? LOG_WRITE_INTERVAL_MS;
    this.#batchChars = options.batchChars ?? LOG_BATCH_CHARS;
  }

  /** pino's stream interface: one line. */
  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= this.#batchChars) this.#writePending();
    else if (!this.#timer) this.#timer = setTimeout(this.#writePending, this.#intervalMs).unref();
  }

  readonly #writePending = () => {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const lines = this.#pending;
    this.#pending = '';
    if (lines) this.#out.write(lines);
  };

  /**
   * Waits until every line is written, for `ms` at most (a reader that went away would hold it
   * forever). sonic-boom's flush() does not wait for a write under way when lines go out at once.
   */
  async flush(ms = 1000): Promise<void> {
    this.#writePending();
    const state = this.#out as unknown as WriteState;
    const deadline = Date.now() + ms;
    while ((state._writing || state._len > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** sonic-boom's own state (not in its types): bytes not yet written, and whether a write is under way. */
type WriteState = { _len: number; _writing: boolean };

export function createLogDestination(): LogDestination {
  // Opening process.stdout makes a pipe or socket on fd 1 non-blocking (libuv's pipe handle does so
  // on Linux): a write to a full pipe then fails with EAGAIN, which sonic-boom retries later. On a
  // blocking fd the write would hold a thread-pool thread for good, and the process's exit, which
  // waits for that thread, would never come. A package loaded at start used to open it by
  // accident; tests/operations/server-process.test.ts ("a full pipe") holds this now that none does.
  void process.stdout;
  const out = new SonicBoomStream({ fd: 1, sync: false, minLength: 0, maxLength: 16 * 1024 * 1024 });
  // The reader closed its end (EPIPE): the server goes on serving; its log lines have nowhere to go.
  out.on('error', () => {});
  return new LogDestination(out);
}

/**
 * One line per request, when it is answered: method, URL, status and time, like an access log.
 * Fastify's own two lines per request (received, completed) doubled the cost of logging, a tenth
 * of a cheap request's CPU. Where a request goes that never ends is still visible at debug level,
 * which logs each one as it arrives. Fastify's other request lines (errors, 404s) are its own.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request'); // a no-op function above debug
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
