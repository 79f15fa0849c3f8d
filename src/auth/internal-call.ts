// A tool call of /mcp reaches the API in-process (app.inject) with its caller's credential. An
// OAuth access token is for /mcp alone (its audience), so the API takes one only from such a call,
// which this header marks: its value is a secret of this process that never leaves it.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

const HEADER = 'x-gigmarket-mcp-call';
const secret = Buffer.from(randomBytes(32).toString('base64url'));

/** The header an in-process call from a tool of /mcp carries. */
export function mcpCallHeader(): Record<string, string> {
  return { [HEADER]: secret.toString() };
}

export function isMcpCall(request: FastifyRequest): boolean {
  const value = request.headers[HEADER];
  if (typeof value !== 'string' || value.length !== secret.length) return false;
  return timingSafeEqual(Buffer.from(value), secret);
}
