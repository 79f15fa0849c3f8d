// The server's own time limits, over real sockets: a request whose body trickles in is answered 408
// with the envelope once HTTP_REQUEST_TIMEOUT_MS has passed (however steadily the bytes come), and a
// connection that goes silent is closed after HTTP_CONNECTION_TIMEOUT_MS, except an MCP tool call's,
// which is silent while the owner is asked.
import net from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { loadSpec } from '../../src/spec.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { type Answer, connectMcp, structured } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const REQUEST_TIMEOUT_MS = 1000;
const CONNECTION_TIMEOUT_MS = 600;

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(loadSpec(), 'spec');
const isEnvelope = ajv.compile({ $ref: 'spec#/components/schemas/ErrorResponse' });

interface Exchange {
  /** What the server wrote before it closed the connection. */
  text: string;
  /** From the first byte sent to the close. */
  ms: number;
  /** Body bytes the client had sent by then. */
  sent: number;
}

/**
 * Sends `head`, then the body one byte every `everyMs` (none when `body` is empty), and reads until
 * the server closes; gives up after `giveUpMs`, which a server without the limit would reach.
 */
function trickle(url: string, head: string, body: string, everyMs: number, giveUpMs = 60_000): Promise<Exchange> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    let sent = 0;
    let drip: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms (read so far: ${JSON.stringify(text)})`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(head);
      if (!body) return;
      drip = setInterval(() => {
        if (sent < body.length && socket.writable) socket.write(body[sent++]!);
      }, everyMs);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {}); // a reset after the answer: the close below still tells when
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ text, ms: performance.now() - started, sent });
    });
  });
}

let server: TestServer;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer({
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HTTP_CONNECTION_TIMEOUT_MS: String(CONNECTION_TIMEOUT_MS),
  });
  ({ apiKey } = await server.user('Slow Sender'));
});
afterAll(async () => {
  await server?.close();
});

describe('HTTP_REQUEST_TIMEOUT_MS', () => {
  it('answers a body that trickles in, however steadily, 408 with the envelope once the time is up', async () => {
    // Sent whole, it would take a minute: answered mid-way, whatever the machine's load.
    const body = JSON.stringify({ title: 'Slow gig', description: 'x'.repeat(600) });
    const head = `POST /api/gigs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // A byte every 100 ms: never silent for long enough for the connection time-out to fire.
    const { text, ms, sent } = await trickle(server.url, head, body, 100);
    expect(sent).toBeLessThan(body.length);
    expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    const [status, rest = ''] = text.split('\r\n\r\n');
    expect(status).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(status).toMatch(/content-type: application\/json/i);
    const envelope = JSON.parse(rest);
    expect(isEnvelope(envelope), ajv.errorsText(isEnvelope.errors)).toBe(true);
    expect(envelope.error).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'the request did not arrive in time',
      issues: [{ path: 'request', message: 'the request did not arrive in time' }],
    });
  });

  it('answers headers that never end the same way, on a new or a kept-alive connection', async () => {
    const slow = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    for (const before of ['', 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n']) {
      const { text, sent } = await trickle(server.url, before + slow, `X-Slow: ${'x'.repeat(600)}`, 100);
      expect(sent).toBeLessThan(608); // answered while the header still came in
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => m[1]);
      expect(statuses).toEqual(before ? ['200', '408'] : ['408']);
      expect(JSON.parse(text.slice(text.lastIndexOf('\r\n\r\n') + 4)).error.issues).toEqual([
        { path: 'request', message: 'the request did not arrive in time' },
      ]);
    }
  });

  it('closes, without a second answer, a connection whose body still trickles in after its answer', async () => {
    const body = 'x'.repeat(600);
    const head = `POST /api/gigs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text, sent } = await trickle(server.url, head, body, 100);
    expect(sent).toBeLessThan(body.length); // closed while the body still came in
    expect(text).toMatch(/^HTTP\/1\.1 401 /); // no credentials: answered before the body is read
    expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
  });

  it('leaves a request that arrives in time alone', async () => {
    const res = await fetch(`${server.url}/api/gigs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Quick gig', description: 'Arrives at once.' }),
    });
    expect(res.status).toBe(201);
  });
});

describe('HTTP_CONNECTION_TIMEOUT_MS', () => {
  it('closes a connection that goes silent in the middle of a request', async () => {
    const { text, ms } = await trickle(server.url, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n', '', 0);
    expect(text).toBe(''); // closed, not answered 408 as the request's time-out would
    expect(ms).toBeGreaterThanOrEqual(CONNECTION_TIMEOUT_MS - 50);
  });
});

describe('MCP tool calls waiting for their owner', () => {
  it('keep their connection past HTTP_CONNECTION_TIMEOUT_MS of silence', async () => {
    const [client, worker] = await server.users('Patient Client', 'Patient Worker');
    const { contract } = await pendingContract(client, worker);
    // The owner takes longer to answer than a silent connection is allowed.
    const slowYes = (async () => {
      await new Promise((r) => setTimeout(r, CONNECTION_TIMEOUT_MS * 2));
      return { action: 'accept', content: { confirm: true } };
    }) as unknown as Answer;
    const mcp = await connectMcp(server.url, 'http', client.apiKey, slowYes);
    try {
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(result.isError).toBeFalsy();
      expect(structured(result).contract.client_approved_at).toEqual(expect.any(String));
    } finally {
      await mcp.close();
    }
  });
});

describe('the settings', () => {
  it('default to 30 s for a request, 60 s of silence and 72 s of keep-alive', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).httpTimeouts).toEqual({ requestMs: 30_000, connectionMs: 60_000, keepAliveMs: 72_000 });
  });

  it('must be positive, and leave a recommendation time to wait for the model', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS must be at least 1/);
    expect(() => loadConfig({ NODE_ENV: 'test', HTTP_KEEP_ALIVE_TIMEOUT_MS: '5s' })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer/,
    );
    expect(() => loadConfig({ NODE_ENV: 'test', LLM_URL: 'http://127.0.0.1:9/v1', LLM_TIMEOUT_MS: '90000' })).toThrow(
      /HTTP_CONNECTION_TIMEOUT_MS \(60000\) must be longer than LLM_TIMEOUT_MS \(90000\)/,
    );
  });
});
