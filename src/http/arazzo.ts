// `/arazzo.yaml`: the contract lifecycle as Arazzo 1.0.1 workflows (arazzo.yaml at the checkout's
// root), served as it is, like /openapi.yaml: its `sourceDescriptions` names `./openapi.yaml`, which
// resolves beside it on this server. Public; read once at start. llms.txt and the API reference
// (the spec's `externalDocs`) link it; CI runs it (`npm run check:arazzo`).
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../project-root.ts';

export const ARAZZO_PATH = '/arazzo.yaml';

export function registerArazzo(app: FastifyInstance): void {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, 'arazzo.yaml'), 'utf8');
  app.get(ARAZZO_PATH, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(text));
}
