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
