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
import type { FastifySchema } from 'fastify';
import { type OpenApiDocument, specCacheDir, specText } from '../spec.ts';

/** A route as the spec describes it; the app adds its handler and config (by operation). */
export interface SpecRoute {
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

/**
 * One route per operation: from the cache, or made by glue in a Fastify instance of its own (never
 * started) and cached. The caller registers them, each in the scope it belongs to.
 */
export async function specRoutes(spec: OpenApiDocument, cacheDir = specCacheDir): Promise<SpecRoute[]> {
  return (await gluedRoutes(spec, cacheDir)).map((route) => withClosedQuery(withJsonResponsesByStatus(route)));
}

/**
 * The spec's query parameter lists are closed, as its bodies are (its introduction says so): a
 * parameter the operation does not define is a 400 naming it (`query.limt`), where it used to be
 * ignored and `?limt=5` answered the default page. Glue gives no query schema to an operation
 * without query parameters: it gets an empty closed one.
 */
function withClosedQuery(route: SpecRoute): SpecRoute {
  const query = (route.schema.querystring ?? { type: 'object', properties: {} }) as Record<string, unknown>;
  return { ...route, schema: { ...route.schema, querystring: { ...query, additionalProperties: false } } };
}

type ResponseSchemas = Record<string, { content?: Record<string, { schema?: unknown }> }>;

/**
 * A response that is JSON only is given to Fastify as its schema alone, by status, not by media
 * type: keyed by media type, Fastify parses the reply's Content-Type on every response to pick
 * the serializer (a visible share of a gig read's time). The two responses with other media types (files) keep
 * their map.
 */
function withJsonResponsesByStatus(route: SpecRoute): SpecRoute {
  const responses = route.schema.response as ResponseSchemas | undefined;
  if (!responses) return route;
  const byStatus = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const types = Object.keys(response.content ?? {});
      const jsonOnly = types.length === 1 && types[0] === 'application/json' && response.content!['application/json']!.schema;
      return [status, jsonOnly || response];
    }),
  );
  return { ...route, schema: { ...route.schema, response: byStatus } };
}

/** The routes glue makes of the spec, from the cache when it holds them. */
async function gluedRoutes(spec: OpenApiDocument, cacheDir: string): Promise<SpecRoute[]> {
  const file = cacheFile(cacheDir);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // not made yet (or unreadable): glue makes them below
  }

  const made: SpecRoute[] = [];
  const [{ default: Fastify }, { default: openapiGlue }] = await Promise.all([import('fastify'), import('fastify-openapi-glue')]);
  const scratch = Fastify({ logger: false });
  // Nothing is compiled here: the app compiles the schemas of the routes it registers.
  scratch.setValidatorCompiler(() => () => true);
  scratch.setSerializerCompiler(() => JSON.stringify);
  scratch.addHook('onRoute', (route) => {
    // Fastify adds a HEAD route beside each GET by itself (the spec has no HEAD operation).
    const operationId = route.config?.operationId;
    if (!operationId || route.method === 'HEAD') return;
    made.push({ method: route.method as string, url: route.url, operationId, schema: route.schema ?? {} });
  });
  await scratch.register(openapiGlue, {
    specification: spec,
    operationResolver: (operationId: string) => ({ handler: async () => undefined, config: { operationId } }) as never,
  });
  await scratch.close();
  // As glue hands them over, before Fastify compiles anything from them; a schema JSON cannot hold
  // (a cycle) only means no cache.
  let text: string;
  try {
    text = JSON.stringify(made);
  } catch {
    return made;
  }
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, text);
    fs.renameSync(partial, file); // whole or not at all, whichever process writes it
  } catch {
    // a read-only install: glue again next time
  }
  return made;
}
