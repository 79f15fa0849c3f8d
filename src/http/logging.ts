// The server's pino options: no credential ever reaches a log line (docs/architecture.md §3).
import type { FastifyRequest } from 'fastify';

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
    // Fastify's request serializer logs no headers; these stay redacted should anything log them.
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
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
