// A local webhook receiver: records every request it gets, and answers as a test scripts it (a
// status, a Retry-After, a delay or a gate the test opens, a Location), one answer per request to a
// path in order, then the default.
import http from 'node:http';
import { closeServer, listenLocal, readBody } from './local-server.ts';

export interface ReceivedRequest {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ScriptedAnswer {
  status: number;
  retryAfter?: string;
  delayMs?: number;
  /** Answer only once this settles: the test decides when, instead of a clock. */
  until?: Promise<unknown>;
  location?: string;
  body?: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /**
   * Answers for the next requests to `path`, in order; after them, `fallback`. Per path, so that a
   * late retry to another endpoint (another test's) cannot take an answer meant for this one.
   */
  script(path: string, ...answers: ScriptedAnswer[]): void;
  fallback: ScriptedAnswer;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const queue: (ScriptedAnswer & { path: string })[] = [];
  // Each waiter answers whether it is satisfied; the unsatisfied stay.
  let waiters: (() => boolean)[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    fallback: { status: 200, body: 'ok' },
    script: (path, ...answers) => {
      queue.push(...answers.map((a) => ({ ...a, path })));
    },
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice());
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`${received.length} of ${count} webhook requests after ${timeoutMs} ms`)),
          timeoutMs,
        );
        if (!check()) waiters.push(check);
      });
    },
    close: () => closeServer(server),
  };
  const server = http.createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({ at: Date.now(), path: req.url ?? '/', headers: req.headers, body });
    waiters = waiters.filter((w) => !w());
    const scripted = queue.findIndex((a) => a.path === (req.url ?? '/'));
    const answer = scripted >= 0 ? queue.splice(scripted, 1)[0]! : receiver.fallback;
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.until) await answer.until;
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (answer.retryAfter) headers['retry-after'] = answer.retryAfter;
    if (answer.location) headers.location = answer.location;
    if (!res.destroyed) res.writeHead(answer.status, headers).end(answer.body ?? '');
  });
  receiver.url = await listenLocal(server);
  return receiver;
}
