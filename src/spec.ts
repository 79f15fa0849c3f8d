// The OpenAPI document, loaded once: routes, validation, docs and tests all read this.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const specPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi.yaml');
export const specText = fs.readFileSync(specPath, 'utf8');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = Record<string, any>;

export function loadSpec(): OpenApiDocument {
  return YAML.parse(specText);
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
