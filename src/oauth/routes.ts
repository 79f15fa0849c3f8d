// The OAuth routes: the authorization server's endpoints (oidc-provider, under /oauth/ and its
// RFC 8414 metadata), the protected resource metadata of /mcp (RFC 9728) and the routes of the
// dashboard's Authorize page. They are protocol endpoints and the dashboard's own, not the API for
// agents, so openapi.yaml does not list them; the
// MCP guide (docs/guide/mcp-and-agents.md) does.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { registerConsent } from './consent.ts';
import { asPublicRequest, createOAuthProvider, mcpResource, OAUTH_PATHS, type OAuthProvider } from './provider.ts';
import { SCOPE_NAMES } from './scopes.ts';

/** Where /mcp's protected resource metadata is (RFC 9728: the resource's path after the well-known name). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

export function resourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl}${RESOURCE_METADATA_PATH}`;
}

/**
 * The provider, made on the first OAuth request rather than at start-up: oidc-provider (and Koa
 * under it) is a noticeable part of a cold start, and most processes never see an OAuth client.
 */
export function lazyProvider(ctx: Context): () => Promise<OAuthProvider> {
  let made: Promise<OAuthProvider> | undefined;
  // A failure is not kept: the next request tries again.
  return () =>
    (made ??= createOAuthProvider(ctx).catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
}

/**
 * An authorization request that names no scope (as MCP clients send when they know none) asks for
 * `read`, the scope every grant holds: the provider would otherwise have nothing to grant.
 */
function withDefaultScope(raw: IncomingMessage): IncomingMessage {
  const url = new URL(raw.url ?? '/', 'http://localhost');
  if (raw.method !== 'GET' || url.pathname !== OAUTH_PATHS.authorization || url.searchParams.has('scope')) return raw;
  url.searchParams.set('scope', 'read');
  raw.url = `${url.pathname}${url.search}`;
  return raw;
}

export async function registerOAuthRoutes(app: FastifyInstance, ctx: Context, provider: () => Promise<OAuthProvider>): Promise<void> {
  const { publicUrl } = ctx.config;
  const metadata = {
    resource: mcpResource(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: SCOPE_NAMES,
    bearer_methods_supported: ['header'],
    resource_name: 'gigmarket MCP server',
    resource_documentation: `${publicUrl}/llms.txt`,
  };
  for (const path of [RESOURCE_METADATA_PATH, '/.well-known/oauth-protected-resource']) {
    app.get(path, async (_request, reply) => {
      reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300');
      return metadata;
    });
  }

  await app.register(async (scope) => {
    // The provider reads request bodies itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    let callback: ReturnType<OAuthProvider['callback']> | undefined;
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      callback ??= (await provider()).callback();
      // Headers set so far (request id, security headers) go with the provider's response.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      await callback(withDefaultScope(asPublicRequest(request.raw, publicUrl)), reply.raw);
    };
    const paths = [...new Set(Object.values(OAUTH_PATHS))];
    for (const url of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', ...paths]) {
      scope.route({ method: ['GET', 'POST', 'OPTIONS'], url, handler });
      scope.route({ method: ['GET', 'POST', 'DELETE', 'OPTIONS'], url: `${url}/*`, handler });
    }
  });

  registerConsent(app, ctx, provider);
}
