// Fastify's JSON parser, keeping the raw body for routes whose spec sets
// `x-fastify-config: { rawBody: true }` (the Stripe webhook signs the exact bytes); and no
// text/plain parser.
import { errorCodes, type FastifyInstance } from 'fastify';
import { UPLOAD_CONTENT_TYPES } from '../domain/uploads.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
  interface FastifyContextConfig {
    rawBody?: boolean;
  }
}

export function keepRawJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // The API takes JSON (and multipart where the spec says so). Fastify's default text/plain parser
  // would hand a handler a string the spec's body schema never saw (it validates per content
  // type): without it, text/plain is 415 like any other undeclared type.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.config.rawBody) request.rawBody = body as string;
    parseJson(request, body as string, done);
  });
}

/**
 * The file types the API sends (a resume download) but never takes as a request body. The spec
 * router checks every media type of the spec for a parser and warns at start about each missing
 * one; this parser answers what a missing one would: 415.
 */
export function refuseResponseOnlyBodies(app: FastifyInstance): void {
  const responseOnly = UPLOAD_CONTENT_TYPES.filter((type) => type.startsWith('image/'));
  app.addContentTypeParser([...responseOnly], (request, _payload, done) => {
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type'] ?? ''), undefined);
  });
}
