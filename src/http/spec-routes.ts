// The API's routes, from the spec. fastify-openapi-glue turns the document into Fastify routes
// (method, URL, and the schemas of parameters, body and responses, references resolved), but it
// first validates the whole document against the OpenAPI schema, at every start: a fifth of a
// second of a cold start, plus loading the validator. The routes it made are kept as JSON under
// node_modules/.cache (like the parsed spec, src/spec.ts), named by the YAML's hash and glue's
// version, so a changed spec or glue runs it again; later starts register the same routes
// without loading glue at all. The document is checked in CI as well (redocly lint).
import { hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { type OpenApiDocument, specCacheDir, specText } from '../spec.ts';

/** What a route needs besides what the spec says: its handler and config, by operation. */
export type OperationRoute = (operationId: string) => Pick<RouteOptions, 'handler' | 'config'>;

interface SpecRoute {
  method: string;
  url: string;
  operationId: string;
  schema: FastifySchema;
}

function glueVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('fastify-openapi-glue'));
  return JSON.parse(fs.readFileSync(path.join(path.dirname(entry), 'package.json'), 'utf8')).version;
}

function cacheFile(cacheDir: string): string {
  return path.join(cacheDir, `routes-${hash('sha256', `${specText}\n${glueVersion()}`, 'hex').slice(0, 32)}.json`);
}

/** Registers one route per operation in `scope` (a scope of its own: hooks added to it stay in it). */
export async function registerSpecRoutes(
  scope: FastifyInstance,
  spec: OpenApiDocument,
  routeOf: OperationRoute,
  cacheDir = specCacheDir,
): Promise<void> {
  const file = cacheFile(cacheDir);
  let cached: SpecRoute[] | undefined;
  try {
    cached = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // not made yet (or unreadable): glue makes them below
  }
  if (cached) {
    for (const route of cached) scope.route({ method: route.method, url: route.url, schema: route.schema, ...routeOf(route.operationId) });
    return;
  }

  const made: string[] = [];
  scope.addHook('onRoute', (route) => {
    // Fastify adds a HEAD route beside each GET by itself (the spec has no HEAD operation).
    const operationId = route.config?.operationId;
    if (!operationId || route.method === 'HEAD') return;
    // As glue hands it over, before Fastify compiles anything from it; a schema JSON cannot hold
    // (a cycle) only means no cache.
    const entry = { method: route.method as string, url: route.url, operationId, schema: route.schema ?? {} } satisfies SpecRoute;
    try {
      made.push(JSON.stringify(entry));
    } catch {
      made.push('');
    }
  });
  const { default: openapiGlue } = await import('fastify-openapi-glue');
  await scope.register(openapiGlue, {
    specification: spec,
    // The type says RouteOptions, but glue only spreads handler and config over its own.
    operationResolver: (operationId: string) => routeOf(operationId) as never,
  });
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    if (made.includes('')) return;
    fs.writeFileSync(partial, `[${made.join(',')}]`);
    fs.renameSync(partial, file); // whole or not at all, whichever process writes it
  } catch {
    // a read-only install (or a schema JSON cannot hold): glue again next time
  }
}
