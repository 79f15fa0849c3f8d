// Errors Node's HTTP parser raises before Fastify sees a request (malformed HTTP, headers over the
// 16 KB limit) or while it reads one (a request too slow to arrive, HTTP_REQUEST_TIMEOUT_MS):
// answered on the socket with the same envelope as every other error, instead of Fastify's default
// body, unless the request already has its answer.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { envelope } from '../errors.ts';

// Required, not imported: an ES import of node:http builds its namespace from every export, and
// reading the lazy WebSocket ones loads Node's bundled undici, and its heap, in every process.
const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

interface ClientError extends Error {
  code?: string;
}

/** Every one of them is invalid input (VALIDATION_FAILED); they differ in status and in what was wrong. */
function classify(err: ClientError): { status: number; message: string; path: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: `the request headers exceed ${http.maxHeaderSize} bytes`, path: 'header' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, message: 'the request did not arrive in time', path: 'request' };
  }
  return { status: 400, message: 'the request is not valid HTTP/1.1', path: 'request' };
}

/** Node's own fields of a server socket: the response it is writing and the request it is parsing. */
type ServerSocket = Socket & {
  _httpMessage?: { headersSent: boolean } | null;
  parser?: { incoming?: { complete: boolean } | null } | null;
};

/**
 * Whether the request in progress has had its answer: a request refused before its body was read
 * (401, 413) whose body keeps arriving until the time-out. A second answer would be one to no request.
 */
function answered(socket: ServerSocket): boolean {
  if (socket._httpMessage) return socket._httpMessage.headersSent;
  // The answer is sent and detached from the socket; the parser still holds its request.
  const incoming = socket.parser?.incoming;
  return Boolean(incoming && !incoming.complete);
}

/** Fastify's `clientErrorHandler` (called with the instance as `this`). */
export function clientErrorHandler(this: FastifyInstance, err: ClientError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message, path } = classify(err);
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  if (socket.writable && !answered(socket)) {
    const body = JSON.stringify(envelope('VALIDATION_FAILED', message, [{ path, message }]));
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
