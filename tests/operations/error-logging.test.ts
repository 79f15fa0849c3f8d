// How the error handler logs what it answers (issue 36): a refusal the API expects (every 4xx, and a
// 5xx that says how the server is set up, such as 503 RECOMMENDATION_UNAVAILABLE) is logged as
// what it is, at info or warn and without a stack trace; only an unexpected failure is an error.
// Fastify with the app's error handler and log controller, its log lines read back as JSON.
import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { RequestLogController } from '../../src/http/logging.ts';

const INFO = 30;
const WARN = 40;
const ERROR = 50;

interface Line {
  level: number;
  msg: string;
  err?: { stack?: string };
  code?: string;
  status?: number;
}

const lines: Line[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text));
    done();
  },
});

const app = Fastify({ logger: { level: 'info', stream: sink }, logController: new RequestLogController() });
app.setErrorHandler(errorHandler);
const THROWS: Record<string, () => Error> = {
  '/not-found': () => new ApiError('NOT_FOUND', 'gig not found'),
  '/unavailable': () =>
    new ApiError('RECOMMENDATION_UNAVAILABLE', 'recommendations are not available on this server: no language model is configured'),
  '/provider': () => new ApiError('PAYMENT_PROVIDER_ERROR', 'payment provider sandbox could not create the payment'),
  '/bug': () => new TypeError('cannot read properties of undefined'),
};
for (const [url, error] of Object.entries(THROWS))
  app.get(url, async () => {
    throw error();
  });

beforeAll(() => app.ready());
afterAll(() => app.close());

/** The lines the error handler wrote for one request (not the access line every request gets). */
async function logged(url: string): Promise<{ status: number; lines: Line[] }> {
  lines.length = 0;
  const res = await app.inject({ url });
  return { status: res.statusCode, lines: lines.filter((l) => l.msg !== 'request completed') };
}

describe('what the error handler logs', () => {
  it('logs a 4xx at info, without a stack trace', async () => {
    const { status, lines } = await logged('/not-found');
    expect(status).toBe(404);
    expect(lines).toEqual([expect.objectContaining({ level: INFO, code: 'NOT_FOUND', status: 404, msg: 'gig not found' })]);
    expect(lines[0]!.err).toBeUndefined();
  });

  it('logs an expected 503 (no language model configured) at warn, without a stack trace', async () => {
    const { status, lines } = await logged('/unavailable');
    expect(status).toBe(503);
    expect(lines).toEqual([expect.objectContaining({ level: WARN, code: 'RECOMMENDATION_UNAVAILABLE', status: 503 })]);
    expect(lines[0]!.err).toBeUndefined();
  });

  it('logs a failure of something it depends on, and an unexpected error, at error with the stack', async () => {
    for (const [url, status] of [
      ['/provider', 502],
      ['/bug', 500],
    ] as const) {
      const out = await logged(url);
      expect(out.status, url).toBe(status);
      expect(out.lines, url).toEqual([expect.objectContaining({ level: ERROR })]);
      expect(out.lines[0]!.err?.stack, url).toMatch(/Error/);
    }
  });
});
