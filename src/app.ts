// buildApp: the one function that wires the HTTP side: the spec drives the routes, and every
// handler receives the one context (src/context.ts) built at start.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import cookie from '@fastify/cookie';
import { randomUUID } from 'node:crypto';
import type { Context } from './context.ts';
import type { Operation } from './http/operation.ts';
import { authenticateHook, presentsKnownKey, sessionCookieName } from './auth/authenticate.ts';
import { errorHandler, frameworkErrorHandler, notFoundHandler } from './http/error-handler.ts';
import { idempotencyHooks } from './http/idempotency.ts';
import { finalPhaseOperation, operationOf } from './http/operation.ts';
import { rateLimitCost, registerRateLimits } from './http/rate-limit.ts';
import { checkRequestBody, refuseNulCharacters, validatorCompiler } from './http/validation.ts';
import { listOperations, loadSpec, publishedSpec } from './spec.ts';
import { allHandlers } from '../handlers/index.ts';
import { registerBrowserRoutes } from './auth/browser-routes.ts';
import { keepRawJsonBodies, refuseResponseOnlyBodies } from './http/raw-body.ts';
import { RequestLogController, loggerOptions } from './http/logging.ts';
import { lazySerializers } from './http/serialization.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { serverTimeouts } from './http/server-timeouts.ts';
import { securityHeaders } from './http/security-headers.ts';
import { leaveMultipartBodiesUnread, readUploads, registerUploadRoutes, uploadFieldsOf } from './http/uploads.ts';
import { registerMcpRoute } from './mcp/http.ts';
import { mcpSessionStore } from './services/mcp-sessions.ts';
import { SCOPE_OF_OPERATION } from './mcp/operations.ts';
import { lazyProvider, registerOAuthRoutes, resourceMetadataUrl } from './oauth/routes.ts';
import { mcpResource } from './oauth/provider.ts';
import { SCOPE_NAMES } from './oauth/scopes.ts';
import { tokenHolder } from './oauth/tokens.ts';
import { toolDefinitions } from './mcp/schema.ts';
import { registerLlmsText } from './http/llms.ts';
import { registerArazzo } from './http/arazzo.ts';
import { registerApiReference } from './http/api-reference.ts';
import { specRoutes } from './http/spec-routes.ts';
import { registerMethodNotAllowed } from './http/method-not-allowed.ts';
import { commaListParameters, splitCommaLists } from './http/comma-list.ts';
import { addRouteHook } from './http/route-hooks.ts';
import { registerProviderWebhook } from './payments/webhook-route.ts';
import { countRequests, registerMetricsRoute } from './metrics/http.ts';
import type { Tracing } from './tracing/index.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

type Handler = (request: FastifyRequest, reply: FastifyReply, op: Operation) => unknown;

/**
 * Runs the handler with its operation (src/http/operation.ts). With an Idempotency-Key, an
 * operation that calls nothing outside runs whole as its final transaction, so its effects and its
 * recorded response commit together; one that does runs its own phases.
 */
function operationHandler(ctx: Context, handler: Handler, outsideCalls: boolean) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const op = operationOf(ctx, request, reply);
    if (!request.idempotency || outsideCalls) return handler(request, reply, op);
    return op.final((inTransaction) => handler(request, reply, finalPhaseOperation(inTransaction)) as Promise<unknown>);
  };
}

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

export interface AppOptions {
  /** Fastify's logger: its own pino with the context's options by default; false in tests. */
  logger?: boolean | object;
  /** Traces (src/tracing/): its request spans are registered before any hook or route. */
  tracing?: Pick<Tracing, 'fastifyPlugin'>;
}

export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    logController: new RequestLogController(),
    bodyLimit: config.bodyLimitBytes,
    ...serverTimeouts(config.httpTimeouts),
    // A number of hops as Fastify itself reads one (its types take only the function form).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });

  if (options.tracing) await app.register(options.tracing.fastifyPlugin);
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Hooks that run on every request are synchronous where they can be: an async one costs a promise.
  // The request id and the security headers come first, so that errors and unknown routes carry them too.
  const security = securityHeaders({ production: config.nodeEnv === 'production' });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.headers(security);
    done();
  });
  app.addHook('preValidation', refuseNulCharacters);
  // Prometheus metrics only where the operator asked for them (src/metrics/http.ts).
  if (config.metrics) countRequests(app, ctx.metrics);
  // Rate limits (src/http/rate-limit.ts): routes outside the API get theirs as they are registered; the API's go around authentication.
  const limits = await registerRateLimits(app, config, { knownKey: (request) => presentsKnownKey(ctx.apiKeys, request) });

  keepRawJsonBodies(app);
  refuseResponseOnlyBodies(app);
  await app.register(cookie, { secret: ctx.sessionSecret });
  leaveMultipartBodiesUnread(app);

  const spec = loadSpec();
  const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
  const handlers = allHandlers() as Record<string, (...args: never[]) => unknown>;
  const missing = [...operations.keys()].filter((id) => !handlers[id]);
  const extra = Object.keys(handlers).filter((id) => !operations.has(id));
  if (missing.length || extra.length) {
    throw new Error(
      `spec and handlers disagree: missing handlers [${missing.join(', ')}], handlers without an operation [${extra.join(', ')}]`,
    );
  }

  const idempotency = idempotencyHooks(ctx.db, config.idempotencyLockSeconds);
  const oauthProvider = lazyProvider(ctx);
  const resource = mcpResource(config.publicUrl);
  const authenticate = limits.aroundAuthentication(
    authenticateHook(ctx.db, ctx.apiKeys, {
      publicUrl: config.publicUrl,
      sessionCookie: sessionCookieName(config.nodeEnv),
      tokens: {
        holder: async (token) => tokenHolder(ctx.db, await oauthProvider(), resource, token),
        scopeOf: (operationId) => SCOPE_OF_OPERATION.get(operationId),
        challenge: `Bearer resource_metadata="${resourceMetadataUrl(config.publicUrl)}", scope="${SCOPE_NAMES.join(' ')}"`,
      },
    }),
  );
  const glued = await specRoutes(spec);
  await app.register(async (api) => {
    api.addHook('onRequest', authenticate);
    // The other steps only on the operations they apply to, so a read runs none of them.
    api.addHook('onRoute', (route) => {
      const { config } = route;
      if (config?.requestBody) addRouteHook(route, 'preValidation', checkRequestBody);
      if (config?.upload) addRouteHook(route, 'preValidation', readUploads);
      if (config?.commaLists?.length) addRouteHook(route, 'preValidation', splitCommaLists);
      if (route.method === 'POST') {
        addRouteHook(route, 'preHandler', idempotency.preHandler);
        addRouteHook(route, 'onSend', idempotency.onSend);
      }
    });
    const routes = glued.map(({ method, url, schema, operationId }): RouteOptions => {
      const op = operations.get(operationId)!;
      const body = op.operation.requestBody;
      return {
        method: method as RouteOptions['method'],
        url,
        schema,
        handler: operationHandler(ctx, handlers[operationId] as Handler, op.operation['x-fastify-config']?.outsideCalls === true),
        config: {
          ...(op.operation['x-fastify-config'] ?? {}),
          operationId,
          security: op.security,
          rateLimitCost: rateLimitCost(operationId, op.operation),
          requestBody: body ? { required: body.required === true, mediaTypes: Object.keys(body.content ?? {}) } : undefined,
          upload: uploadFieldsOf(body, spec.components?.schemas),
          commaLists: commaListParameters(spec, op.operation),
        },
      };
    });
    for (const route of routes) if (!route.config?.upload) api.route(route);
    await registerUploadRoutes(
      api,
      routes.filter((route) => route.config?.upload),
    );
  });
  // The spec's paths asked with a method they do not define: 405 with Allow, before any credentials.
  registerMethodNotAllowed(app, glued);

  const published = publishedSpec(spec, config.publicUrl);
  app.get('/openapi.yaml', async (_req, reply) => reply.type('application/yaml; charset=utf-8').send(published.yaml));
  app.get('/openapi.json', async () => published.json);
  registerArazzo(app);
  if (config.metrics?.token && config.metrics.port === undefined) registerMetricsRoute(app, ctx.metrics, config.metrics.token);
  registerApiReference(app);
  await registerBrowserRoutes(app, ctx);
  // OAuth for /mcp: the authorization server, /mcp's resource metadata and the consent page (src/oauth/).
  await registerOAuthRoutes(app, ctx, oauthProvider);
  // Called by the payment provider, not by clients: outside the published spec (see the module).
  registerProviderWebhook(app, ctx);
  // For agents: the MCP server over the same operations (src/mcp/), and llms.txt.
  await registerMcpRoute(app, {
    tools: toolDefinitions(spec),
    publicUrl: config.publicUrl,
    allowedOrigins: config.mcpAllowedOrigins,
    version: spec.info.version,
    authenticate,
    sessions: mcpSessionStore(ctx.database),
  });
  registerLlmsText(app, spec, config.publicUrl);
  return app;
}
