// `npm run check:sdks`: generates clients from openapi.yaml with openapi-typescript, @hey-api/openapi-ts,
// orval, typed-openapi and openapi-zod-client (scripts/sdk-check/generators.ts) into .sdk-check/
// (git-ignored), and fails on what broke integrators in issue #13:
// - each output must typecheck under --strict with its usage file, scripts/sdk-check/<id>.usage.ts,
//   whose @ts-expect-error lines fail when the types accept a body without a required field;
// - no generated name may shadow a built-in (Error), and no generator may invent the names below
//   for inline schemas (the invented names are listed);
// - openapi-zod-client's schemas must reject at runtime the bodies the API rejects;
// - GET /api/health must work in Node through hey-api's and orval's clients as generated, i.e.
//   with the base URL they take from the spec's `servers` (scripts/sdk-check/smoke.ts).
// Each failure is one line, `FAIL <generator>: <problem>`, repeated at the end.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { type Generator, generators, type SpecFacts } from './sdk-check/generators.ts';
import { smoke } from './sdk-check/smoke.ts';

/** Names no generator may invent for an inline schema: each is a schema the spec should name (issue #13). */
const BANNED_INVENTED_NAMES: RegExp[] = [
  /ErrorError$/, // Error.error, unnamed (orval)
  /ErrorErrorIssuesItem$/, // Error.error.issues[], unnamed (orval)
  /ListGigsOwner$/, // listGigs' inline `owner` enum
  /NegotiationContact$/, // Negotiation.contact
  /PublicProfileGithub$/, // PublicProfile.github
  /^Health[A-Z]\w*$/, // Health's three identical inline enums (HealthStatus, HealthDatabase, HealthJobs)
  /(Score|Structured)Components$/, // the discovery scores' component objects
];
/** Global names a generated type or schema constant must not take: it would shadow the built-in. */
const RESERVED_NAMES = ['Error', 'Date', 'Map', 'Set', 'Promise', 'Request', 'Response', 'Headers', 'URL', 'File', 'Blob'];
/** The Node that hey-api and orval require (their `engines`). */
const MIN_NODE = [22, 18];

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
// Another spec may be given (`node scripts/check-sdks.ts path/to/openapi.yaml`); the smoke's server serves its own.
const specFile = path.resolve(process.argv[2] ?? path.join(root, 'openapi.yaml'));
const outRoot = path.join(root, '.sdk-check');
const outDir = (g: Generator) => path.join(outRoot, g.id);
const usageFile = (g: Generator) => path.join(root, 'scripts/sdk-check', `${g.id}.usage.ts`);
const run = promisify(execFile);
const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const failures: string[] = [];
const fail = (line: string) => {
  failures.push(line);
  console.log(`FAIL ${line}`);
};
const version = (pkg: string) =>
  (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

function readSpec(): SpecFacts & { servers: string[] } {
  const spec = YAML.parse(fs.readFileSync(specFile, 'utf8'));
  const components = spec.components ?? {};
  const operationIds: string[] = [];
  for (const item of Object.values<Record<string, { operationId?: string }>>(spec.paths ?? {}))
    for (const op of Object.values(item)) if (op?.operationId) operationIds.push(op.operationId);
  // The envelope: the schema the shared error responses refer to.
  const refs = Object.values<any>(components.responses ?? {}).map((r) => r?.content?.['application/json']?.schema?.$ref);
  const envelope = String(refs.find(Boolean) ?? '#/components/schemas/Error')
    .split('/')
    .pop()!;
  // A server URL with its variables at their defaults, as generators substitute them.
  const servers = (spec.servers ?? []).map((s: { url: string; variables?: Record<string, { default: string }> }) =>
    s.url.replace(/\{(\w+)\}/g, (_: string, v: string) => s.variables?.[v]?.default ?? `{${v}}`),
  );
  return {
    schemas: new Set(Object.keys(components.schemas ?? {})),
    parameters: Object.keys(components.parameters ?? {}),
    responses: Object.keys(components.responses ?? {}),
    operationIds,
    envelope,
    servers,
  };
}

async function generate(g: Generator): Promise<boolean> {
  const t = performance.now();
  fs.mkdirSync(outDir(g), { recursive: true });
  try {
    const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    await run(process.execPath, g.args(specFile, outDir(g)), { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    const lines = `${e.stderr ?? ''}\n${e.stdout ?? ''}`.split('\n').filter((l) => l.trim());
    fail(`${g.id}: generation failed: ${(lines.find((l) => /error/i.test(l)) ?? lines[0] ?? e.message).trim()}`);
    return false;
  }
  if (fs.readdirSync(outDir(g)).length === 0) {
    fail(`${g.id}: generation failed: it wrote nothing to .sdk-check/${g.id}/`);
    return false;
  }
  const note = g.after?.(outDir(g));
  console.log(`${g.id} ${version(g.pkg)}: generated in ${seconds(t)}${note ? `; ${note}` : ''}`);
  return true;
}

function checkNames(g: Generator, spec: SpecFacts): void {
  if (!g.names) return;
  const names = g.names(outDir(g));
  for (const name of names.filter((n) => RESERVED_NAMES.includes(n))) {
    const rename = spec.schemas.has(name) ? ` (rename components.schemas.${name})` : '';
    fail(`${g.id}: generates the name ${name}, which shadows the built-in ${name} in its code${rename}`);
  }
  const invented = names.filter((n) => !spec.schemas.has(n) && !g.plumbing?.(n, spec));
  console.log(`${g.id}: ${invented.length} names invented for inline schemas${invented.length ? `: ${invented.join(', ')}` : ''}`);
  for (const name of invented.filter((n) => BANNED_INVENTED_NAMES.some((re) => re.test(n))))
    fail(`${g.id}: invents the name ${name} for an inline schema (name it under components.schemas)`);
}

/** One strict tsc run over every generated client and its usage file; errors attributed to generators. */
async function typecheck(ok: Generator[]): Promise<void> {
  const t = performance.now();
  const compilerOptions = {
    target: 'ES2024',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    // Only node_modules has .d.ts files here: generated code is .ts, so it is checked.
    skipLibCheck: true,
    types: ['node'],
  };
  const include = ok.flatMap((g) => [`${g.id}/**/*.ts`, path.relative(outRoot, usageFile(g))]);
  const tsconfig = path.join(outRoot, 'tsconfig.json');
  fs.writeFileSync(tsconfig, `${JSON.stringify({ compilerOptions, include }, null, 2)}\n`);
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const output = await run(process.execPath, [tsc, '-p', tsconfig, '--pretty', 'false'], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
    .then(() => '')
    .catch((err: { stdout?: string; message: string }) => err.stdout || err.message);
  const errors = output.split('\n').filter((l) => /\): error TS\d+:/.test(l));
  for (const line of errors) {
    const [, file = '', row = '', code = '', message = ''] = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line) ?? [];
    const g = ok.find((x) => file.startsWith(`.sdk-check/${x.id}/`) || file === path.relative(root, usageFile(x)));
    if (!g) {
      fail(`tsc: ${line}`);
      continue;
    }
    const source = (fs.readFileSync(path.join(root, file), 'utf8').split('\n')[Number(row) - 1] ?? '').trim();
    if (code === 'TS2578') {
      const reason = source.replace(/.*@ts-expect-error\s*/, '');
      fail(`${g.id}: the types accept what the API rejects: ${reason} (${path.basename(file)}:${row})`);
    } else if (file.startsWith('.sdk-check/'))
      fail(`${g.id}: generated code does not compile: ${file}:${row} ${code} ${message} \`${source.slice(0, 100)}\``);
    else fail(`${g.id}: ${path.basename(file)}:${row} ${code} ${message}`);
  }
  if (output && errors.length === 0) fail(`tsc: ${output.split('\n')[0]}`);
  console.log(`typecheck (tsc --strict, ${ok.length} clients): ${errors.length} errors in ${seconds(t)}`);
}

async function main(): Promise<void> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < MIN_NODE[0]! || (major === MIN_NODE[0] && minor < MIN_NODE[1]!)) {
    fail(`node: check:sdks needs Node >= ${MIN_NODE.join('.')} (hey-api's and orval's engines), this is ${process.versions.node}`);
    return;
  }
  const spec = readSpec();
  console.log(
    `spec ${path.relative(root, specFile) || specFile}: servers ${JSON.stringify(spec.servers)}; error envelope: components.schemas.${spec.envelope}`,
  );
  fs.rmSync(outRoot, { recursive: true, force: true });
  fs.mkdirSync(outRoot, { recursive: true });

  const generated = await Promise.all(generators.map(generate));
  const ok = generators.filter((_, i) => generated[i]);
  for (const g of ok) {
    try {
      checkNames(g, spec);
    } catch (err) {
      fail(`${g.id}: its output cannot be read for names: ${(err as Error).message}`);
    }
    fs.writeFileSync(path.join(outDir(g), 'envelope.ts'), g.envelope(spec.envelope));
  }
  await typecheck(ok);

  for (const g of ok.filter((x) => x.parses)) {
    let usage: { runtimeProblems(): string[] };
    try {
      usage = await import(pathToFileURL(usageFile(g)).href);
    } catch (err) {
      fail(`${g.id}: the generated schemas do not load in Node: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    try {
      const problems = usage.runtimeProblems();
      for (const problem of problems) fail(`${g.id}: ${problem}`);
      console.log(`${g.id}: runtime parsing checked (${problems.length} problems)`);
    } catch (err) {
      fail(`${g.id}: the runtime parsing check throws: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  const t = performance.now();
  try {
    const results = await smoke(
      ok.filter((g) => g.health),
      outDir,
      spec.servers,
    );
    for (const r of results) (r.ok ? console.log : fail)(r.line);
  } catch (err) {
    fail(`smoke: ${(err as Error).message}`);
  }
  console.log(`runtime smoke: ${seconds(t)}`);
}

try {
  await main();
} finally {
  console.log(`\ncheck:sdks took ${seconds(started)}; ${failures.length ? `${failures.length} failures:` : 'no failures'}`);
  for (const line of failures) console.log(`FAIL ${line}`);
  process.exitCode = failures.length ? 1 : 0;
}
