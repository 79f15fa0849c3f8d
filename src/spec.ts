// The OpenAPI document, loaded once: routes, validation, docs and tests all read this.
import { hash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root.ts';

export const specPath = path.join(PROJECT_ROOT, 'openapi.yaml');
export const specText = fs.readFileSync(specPath, 'utf8');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

/** Where the parsed document is kept between starts, by the YAML's hash (so it is never stale). */
export const specCacheDir = path.join(path.dirname(specPath), 'node_modules', '.cache', 'gigmarket');

/**
 * The document, parsed. Parsing 8,000 lines of YAML took a good part of a cold start, and JSON
 * parses an order of magnitude faster: the parsed document is kept as JSON under
 * node_modules/.cache, named by the YAML's hash. A cache that cannot be read or written (a
 * read-only install) only means parsing the YAML, as before.
 */
export function loadSpec(): OpenApiDocument {
  const cached = path.join(specCacheDir, `openapi-${hash('sha256', specText, 'hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(fs.readFileSync(cached, 'utf8'));
  } catch {
    // not cached yet (or unreadable): parse the YAML
  }
  // Loaded only here: with the cache in place the server never parses YAML, and the parser's
  // modules stayed in its heap for nothing (docs/performance.md, Memory).
  const YAML = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const spec = YAML.parse(specText);
  try {
    fs.mkdirSync(specCacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(partial, JSON.stringify(spec));
    fs.renameSync(partial, cached); // whole or not at all, whichever process writes it
  } catch {
    // a read-only install: parse again next time
  }
  return spec;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  operation: Record<string, any>;
  /** Effective security requirements: the operation's own, else the document's. */
  security: Record<string, string[]>[];
}

export function listOperations(spec: OpenApiDocument): SpecOperation[] {
  const result: SpecOperation[] = [];
  for (const [p, item] of Object.entries<Record<string, any>>(spec.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      result.push({ operationId: operation.operationId, method, path: p, operation, security: operation.security ?? spec.security ?? [] });
    }
  }
  return result;
}

const THIS_SERVER = 'This server.';

/**
 * The document as a running server publishes it: its own public URL first among the servers, so
 * a client generated from what it downloads calls it by default (an absolute URL: generated
 * clients cannot resolve a relative one in Node).
 */
export function publishedSpec(spec: OpenApiDocument, publicUrl: string): { yaml: string; json: OpenApiDocument } {
  const listed = (spec.servers ?? []) as { url: string }[];
  if (listed.some((s) => s.url === publicUrl)) return { yaml: specText, json: spec };
  const start = specText.indexOf('\nservers:\n');
  if (start < 0) throw new Error('openapi.yaml has no top-level servers list');
  const at = start + '\nservers:\n'.length;
  const entry = `  - url: ${JSON.stringify(publicUrl)}\n    description: ${THIS_SERVER}\n`;
  return {
    yaml: specText.slice(0, at) + entry + specText.slice(at),
    json: { ...spec, servers: [{ url: publicUrl, description: THIS_SERVER }, ...listed] },
  };
}
