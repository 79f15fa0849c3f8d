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
    // line's object, ~1.9 KB allocated per request (bench:pipeline). tests/server-process.test.ts
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

/**
 * Where the server logs: standard output, written asynchronously with a bounded buffer. A reader
 * that stops reading (a log shipper that hung, a pipe nobody drains) must never stop the server:
 * a synchronous write to a full pipe blocks the event loop, shutdown included. So writes go
 * through the thread pool, and beyond 16 MiB waiting, lines are dropped. SonicBoom itself, not
 * pino.destination(), which would flush synchronously on exit and hang there instead.
 *
 * The lines of one turn of the event loop go out in one write, at the end of that turn (a
 * setImmediate). Each write is a hand-off to the thread pool and back, ~4 µs of the main thread's
 * time (bench:pipeline's CPU profile): line by line, that was the access log's largest cost under
 * load, where one turn answers several requests. A line still leaves in the turn that logged it,
 * so a quiet server's log is as prompt as before, which a size threshold (sonic-boom's
 * minLength) would not be.
 */
export class LogDestination {
  readonly #out: SonicBoom;
  #pending = '';
  #scheduled = false;

  constructor(out: SonicBoom) {
    this.#out = out;
  }

  /** pino's stream interface: one line. */
  write(line: string): void {
    this.#pending += line;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#writePending);
  }

  readonly #writePending = () => {
    this.#scheduled = false;
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
  // waits for that thread, would never come. Until 2026-11-26 a package loaded at start opened it
  // by accident; tests/server-process.test.ts ("a full pipe") holds this.
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
