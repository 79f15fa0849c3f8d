// The API's routes come from fastify-openapi-glue on a first start and from its cached output on
// later ones (src/http/spec-routes.ts): both must give Fastify the same routes and schemas.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { lazySerializers } from '../../src/http/serialization.ts';
import { specRoutes } from '../../src/http/spec-routes.ts';
import { validatorCompiler } from '../../src/http/validation.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';

const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-routes-'));
afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

/** The routes as Fastify is given them: method, URL, operation and the schema, as JSON. */
async function routesRegistered(): Promise<string[]> {
  // Compiled as the app compiles them: on a route's first use.
  const app = Fastify({ logger: false, schemaController: { compilersFactory: { buildSerializer: lazySerializers } } });
  app.setValidatorCompiler(validatorCompiler);
  const seen: string[] = [];
  app.addHook('onRoute', (route) => {
    seen.push(JSON.stringify([route.method, route.url, route.config?.operationId ?? null, route.schema ?? null]));
  });
  for (const { method, url, schema, operationId } of await specRoutes(loadSpec(), cacheDir)) {
    app.route({ method, url, schema, handler: async () => ({}), config: { operationId } });
  }
  await app.ready();
  await app.close();
  return seen.sort();
}

describe('routes from the spec', () => {
  it('are the same from glue on a first start and from the cache after it', async () => {
    const fromGlue = await routesRegistered();
    const files = fs.readdirSync(cacheDir);
    expect(files).toEqual([expect.stringMatching(/^routes-[0-9a-f]{32}\.json$/)]);
    const fromCache = await routesRegistered();
    expect(fromCache).toEqual(fromGlue);

    // One route per operation, and Fastify's HEAD beside each GET, in both.
    const operations = listOperations(loadSpec());
    const gets = operations.filter((op) => op.method === 'get').length;
    expect(fromCache).toHaveLength(operations.length + gets);
    const getGig = fromCache.map((r) => JSON.parse(r)).find((r) => r[2] === 'getGig' && r[0] === 'GET');
    expect(getGig[1]).toBe('/api/gigs/:id');
    expect(getGig[3].params.properties.id).toMatchObject({ type: 'string' });
    expect(Object.keys(getGig[3].response)).toEqual(expect.arrayContaining(['200', '404']));
    // A JSON-only response is its schema by status (no Content-Type to parse per response); a
    // response with other media types keeps its map of them.
    expect(getGig[3].response['200']).toMatchObject({ type: 'object', properties: { id: { format: 'uuid' } } });
    expect(getGig[3].response['404'].content).toBeUndefined();
    const getResume = fromCache.map((r) => JSON.parse(r)).find((r) => r[2] === 'getResume' && r[0] === 'GET');
    expect(Object.keys(getResume[3].response['200'].content)).toEqual(['application/pdf', 'image/png', 'image/jpeg', 'image/webp']);
  });

  it('comes from glue again when the cache cannot be read', async () => {
    const [file] = fs.readdirSync(cacheDir);
    fs.writeFileSync(path.join(cacheDir, file!), '{ not json');
    const routes = await routesRegistered();
    expect(routes.length).toBeGreaterThan(100);
    expect(JSON.parse(fs.readFileSync(path.join(cacheDir, file!), 'utf8'))).toHaveLength(listOperations(loadSpec()).length);
  });
});
