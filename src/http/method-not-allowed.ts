// A path of the spec asked with a method it does not define: `405 Method Not Allowed` with an
// `Allow` header listing the methods it has (RFC 9110 §15.5.5), not the 404 of a path that does not
// exist. Each such path gets one route for all the methods it lacks, answered in its own onRequest
// hook: before authentication (which methods a path has is in the public spec), and before the
// body is read, so a body of any size or shape is answered 405 too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** The methods a client may try on a path (OpenAPI's, without CONNECT): the others Node refuses or Fastify does not route. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** For each path, the methods its routes answer: HEAD wherever GET (Fastify answers HEAD for a GET route). */
function methodsByPath(routes: readonly { method: string; url: string }[]): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const { method, url } of routes) {
    const methods = byPath.get(url) ?? new Set<string>();
    methods.add(method.toUpperCase());
    if (method.toUpperCase() === 'GET') methods.add('HEAD');
    byPath.set(url, methods);
  }
  return byPath;
}

/** Registers the 405 routes beside `routes` (the spec's, as Fastify URLs): outside the API's scope, so no credentials are asked. */
export function registerMethodNotAllowed(app: FastifyInstance, routes: readonly { method: string; url: string }[]): void {
  for (const [url, methods] of methodsByPath(routes)) {
    const allow = METHODS.filter((m) => methods.has(m)).join(', ');
    const refuse = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      reply.header('allow', allow);
      const path = request.url.split('?')[0];
      done(new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; it allows ${allow}`));
    };
    app.route({
      method: METHODS.filter((m) => !methods.has(m)),
      url,
      // Fastify adds no HEAD route of its own beside a route that lists HEAD.
      exposeHeadRoute: false,
      onRequest: refuse,
      handler: async () => undefined, // never reached: onRequest refuses
    });
  }
}
