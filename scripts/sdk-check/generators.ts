// The client generators `npm run check:sdks` runs (scripts/check-sdks.ts): how each is invoked,
// where its output goes (.sdk-check/<id>/, git-ignored), the names it gives to schemas, and how
// its generated client calls GET /api/health (for the runtime smoke).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the check needs to know of openapi.yaml. */
export interface SpecFacts {
  schemas: Set<string>;
  parameters: string[];
  responses: string[];
  operationIds: string[];
  /** The component schema the error responses use (the envelope). */
  envelope: string;
}

export interface Generator {
  /** The folder under .sdk-check/ and the usage file scripts/sdk-check/<id>.usage.ts. */
  id: string;
  /** The npm package (its version is printed). */
  pkg: string;
  /** Node arguments that write the client into `out` (absolute); run from the repository root. */
  args(spec: string, out: string): string[];
  /** Rewrites the output after generation, where the check must (returns a note to print). */
  after?(out: string): string | undefined;
  /** The names the generator gave to schemas (types, interfaces or schema constants); none when it names none. */
  names?(out: string): string[];
  /** Names it derives from operations, parameters and responses: not invented from inline schemas. */
  plumbing?(name: string, spec: SpecFacts): boolean;
  /** A module (.sdk-check/<id>/envelope.ts) that re-exports the error envelope as ErrorEnvelope. */
  envelope(name: string): string;
  /** Its usage file exports runtimeProblems(): what its generated validators get wrong when run. */
  parses?: true;
  /** GET /api/health through the generated client, as configured by default: status and body. */
  health?(out: string): Promise<{ status: number; body: unknown }>;
}

const root = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => fs.readFileSync(file, 'utf8');
const load = (file: string) => import(pathToFileURL(file).href);
const matches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]!);
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** operationId (any case of the first letter) followed by one of `suffixes`. */
const fromOperation = (name: string, spec: SpecFacts, suffixes: string) =>
  spec.operationIds.some((op) => new RegExp(`^${literal(op)}(${suffixes})$`, 'i').test(name));

/** The path to a package's (first) command, from its package.json `bin`. */
function bin(pkg: string): string {
  const dir = path.join(root, 'node_modules', pkg);
  const field = (JSON.parse(read(path.join(dir, 'package.json'))) as { bin: string | Record<string, string> }).bin;
  return path.join(dir, typeof field === 'string' ? field : Object.values(field)[0]!);
}

export const generators: Generator[] = [
  {
    id: 'openapi-typescript',
    pkg: 'openapi-typescript',
    // As `npm run gen:types`, into a .ts file: skipLibCheck would skip a .d.ts.
    args: (spec, out) => [bin('openapi-typescript'), spec, '-o', path.join(out, 'api.ts')],
    envelope: (name) => `import type { components } from './api.ts';\nexport type ErrorEnvelope = components['schemas']['${name}'];\n`,
  },
  {
    id: 'hey-api',
    pkg: '@hey-api/openapi-ts',
    args: (spec, out) => [bin('@hey-api/openapi-ts'), '-i', spec, '-o', out, '-c', '@hey-api/client-fetch', '--no-log-file'],
    names: (out) => matches(read(path.join(out, 'types.gen.ts')), /^export type (\w+)/gm),
    plumbing: (name, spec) =>
      fromOperation(name, spec, 'Data|Errors?|Responses?') ||
      /^On\w+Webhook(Payload|Request)$/.test(name) ||
      ['Webhooks', 'ClientOptions', ...spec.parameters].includes(name),
    envelope: (name) => `export type { ${name} as ErrorEnvelope } from './types.gen.ts';\n`,
    health: async (out) => {
      const sdk = await load(path.join(out, 'index.ts'));
      const { data, error, response } = await sdk.getHealth();
      if (!response) throw error; // no response at all (e.g. "Failed to parse URL")
      return { status: response.status, body: data ?? error };
    },
  },
  {
    id: 'orval',
    pkg: 'orval',
    args: (spec, out) => {
      // Orval takes the base URL only from a configuration file: the spec's first server.
      const config = path.join(out, '..', 'orval.config.mjs');
      const output = { target: path.join(out, 'api.ts'), client: 'fetch', mode: 'single', baseUrl: { getBaseUrlFromSpecification: true } };
      fs.writeFileSync(config, `export default ${JSON.stringify({ gigmarket: { input: { target: spec }, output } }, null, 2)};\n`);
      return [bin('orval'), '--config', config];
    },
    names: (out) => matches(read(path.join(out, 'api.ts')), /^export (?:type|interface) (\w+)/gm),
    plumbing: (name, spec) =>
      fromOperation(name, spec, 'Params|Response\\w*') ||
      spec.responses.some((r) => name === `${r}Response`) ||
      spec.parameters.some((p) => name === `${p}Parameter`),
    envelope: (name) => `export type { ${name} as ErrorEnvelope } from './api.ts';\n`,
    health: async (out) => {
      const api = await load(path.join(out, 'api.ts'));
      const { status, data } = await api.getHealth();
      return { status, body: data };
    },
  },
  {
    id: 'typed-openapi',
    pkg: 'typed-openapi',
    // It writes to path.join(cwd, output), so the output path is relative to the root (the cwd).
    args: (spec, out) => [bin('typed-openapi'), spec, '-o', path.relative(root, path.join(out, 'api.ts'))],
    // Its schemas are the `Schemas` namespace; `Endpoints` and the client follow it.
    names: (out) => matches(read(path.join(out, 'api.ts')).split(/export namespace Endpoints/)[0]!, /^\s*export type (\w+)/gm),
    envelope: (name) => `import type { Schemas } from './api.ts';\nexport type ErrorEnvelope = Schemas.${name};\n`,
  },
  {
    id: 'openapi-zod-client',
    pkg: 'openapi-zod-client',
    // Every component's schema, without the client: the default template's needs @zodios/core and axios.
    args: (spec, out) => [
      bin('openapi-zod-client'),
      spec,
      '-o',
      path.join(out, 'schemas.ts'),
      '-t',
      path.join(root, 'node_modules/openapi-zod-client/src/templates/schemas-only.hbs'),
      '--export-schemas',
    ],
    after: (out) => {
      // openapi-zod-client writes for zod 3 (its own dependency); zod 4 still ships that API as zod/v3.
      const file = path.join(out, 'schemas.ts');
      fs.writeFileSync(file, read(file).replace(/from "zod";/, 'from "zod/v3";'));
      return 'imports zod/v3 (the zod 3 API, which openapi-zod-client writes for) instead of zod';
    },
    names: (out) => matches(read(path.join(out, 'schemas.ts')), /^const (\w+) =/gm),
    parses: true,
    envelope: (name) => `import { schemas } from './schemas.ts';\nexport const ErrorEnvelope = schemas.${name};\n`,
  },
];
