// Import rules for gigmarket: `npm run lint:imports` (also part of `npm run lint` and .ci/run).
// docs/architecture.md §1 draws the same picture.
//
// The main rule is the direction: every import points one way,
//
//   handlers/ (HTTP)   jobs/ (pg-boss job definitions)    each imports, of ours, only itself and src/
//            \           /
//             v         v
//               src/                                       imports, of ours, only src/ and db/
//                |
//                v
//               db/                                        imports, of ours, only db/
//
// with two composition roots, the modules of src/ that each import one table from the layer above:
//   src/app.ts     the HTTP app: imports handlers/index.ts (every operation's handler)
//   src/server.ts  the server process's entry point: imports jobs/index.ts (every job), handed to startRuntime
//
// Then the few rules the direction cannot say:
//   no import cycles, anywhere
//   src/domain/          pure rules: of ours only itself, src/errors.ts, the types generated from the spec,
//                        and db/schema/column-values.ts (the columns' lists and bounds; a leaf)
//   src/services/        no transport: never src/http/, fastify only as types
//   self-contained building blocks, each importing only the little of ours it names:
//     src/webhooks/ (delivery's parts), src/outbound/ (the SSRF guard: webhooks and feeds), src/notifications/ (email), src/storage/ (the file store),
//     src/llm/ (the chat-completions call), src/mcp/ (the MCP server: calls the HTTP API),
//     src/capped-body.ts (reading an outside answer up to a size: a leaf, imports nothing of ours)
//   API clients: examples/ and web/ (the dashboard, browser code) import, of ours, only the spec's
//     types (and themselves); src/dashboard/ builds and serves web/dist, and by the direction no
//     module of src/ imports web/'s code
// tests/ and scripts/ may import anything; they are checked only for cycles (and that their imports resolve).
// Not cruised: .sdk-check/ and scripts/sdk-check/*.usage.ts (generated clients and their usage, see below).
//
// "Ours" = a file of this repository, i.e. a path that does not go through node_modules/
// and is not a Node built-in. Paths are relative to the repository root.

/** Ours: the top-level folders and root files of this repository (not node_modules, not built-ins). */
const OURS = '^(src|db|handlers|jobs|tests|scripts|examples|web)/|^[^/]+\\.ts$';
/** The modules of src/ that import a table from the layer above (see the top of this file and the rules below). */
const COMPOSITION_ROOTS = '^src/(app|server)\\.ts$';
/** fastify and the packages built for it: fastify, @fastify/*, fastify-*, @scalar/fastify-api-reference. */
const FASTIFY = '(^|/)node_modules/(fastify/|@fastify/|fastify-|@scalar/fastify-)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'layers-point-one-way',
      severity: 'error',
      comment: 'db/ imports, of ours, only db/: never src/, handlers/ or jobs/.',
      from: { path: '^db/' },
      to: { path: OURS, pathNot: '^db/' },
    },
    {
      name: 'layers-point-one-way',
      severity: 'error',
      comment: 'src/ imports, of ours, only src/ and db/: never handlers/ or jobs/ (but for the composition roots, below).',
      from: { path: '^src/', pathNot: COMPOSITION_ROOTS },
      to: { path: OURS, pathNot: '^(src|db)/' },
    },
    {
      name: 'layers-point-one-way',
      severity: 'error',
      comment: 'The HTTP composition root, src/app.ts, imports of ours only src/, db/ and the handlers\' table, handlers/index.ts.',
      from: { path: '^src/app\\.ts$' },
      to: { path: OURS, pathNot: '^(src|db)/|^handlers/index\\.ts$' },
    },
    {
      name: 'layers-point-one-way',
      severity: 'error',
      comment: 'The server process\'s entry point, src/server.ts, imports of ours only src/, db/ and the jobs\' table, jobs/index.ts.',
      from: { path: '^src/server\\.ts$' },
      to: { path: OURS, pathNot: '^(src|db)/|^jobs/index\\.ts$' },
    },
    {
      name: 'layers-point-one-way',
      severity: 'error',
      comment: 'handlers/ and jobs/ import, of ours, only themselves and src/: never db/ (they call services), never each other.',
      from: { path: '^(handlers|jobs)/' },
      to: { path: OURS, pathNot: '^$1/|^src/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, anywhere (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        "src/domain/ may import, of ours, only src/domain/, src/errors.ts, src/generated/ (types from the spec) and db/schema/column-values.ts (the columns' lists and bounds, a leaf it re-exports); that leaf imports nothing of ours.",
      from: { path: '^src/domain/|^db/schema/column-values\\.ts$' },
      to: { path: OURS, pathNot: '^src/domain/|^src/errors\\.ts$|^src/generated/|^db/schema/column-values\\.ts$' },
    },
    {
      name: 'webhooks-are-self-contained',
      severity: 'error',
      comment: 'src/webhooks/ may import, of ours, only src/webhooks/, src/outbound/ (the SSRF guard), src/errors.ts and types from src/config.ts.',
      from: { path: '^src/webhooks/' },
      to: { path: OURS, pathNot: '^src/webhooks/|^src/outbound/|^src/errors\\.ts$|^src/config\\.ts$' },
    },
    {
      name: 'outbound-guard-is-self-contained',
      severity: 'error',
      comment: 'src/outbound/ (the SSRF guard for URLs the server does not control: webhooks, feeds) imports nothing of ours but itself.',
      from: { path: '^src/outbound/' },
      to: { path: OURS, pathNot: '^src/outbound/' },
    },
    {
      name: 'webhooks-are-self-contained',
      severity: 'error',
      comment: 'src/webhooks/ may import src/config.ts only with `import type`: settings are handed in.',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-are-transport-free',
      severity: 'error',
      comment: 'src/services/ may not import src/http/ (the HTTP plumbing): a service is called by handlers, jobs and the CLI alike.',
      from: { path: '^src/services/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'services-are-transport-free',
      severity: 'error',
      comment: 'src/services/ may import fastify (or a fastify plugin) only with `import type`.',
      from: { path: '^src/services/' },
      to: { path: FASTIFY, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'notifications-are-self-contained',
      severity: 'error',
      comment: 'src/notifications/ (email sender, templates) may import, of ours, only itself and src/config.ts: callers pass plain data.',
      from: { path: '^src/notifications/' },
      to: { path: OURS, pathNot: '^src/notifications/|^src/config\\.ts$' },
    },
    {
      name: 'storage-is-self-contained',
      severity: 'error',
      comment: 'src/storage/ (the file store) may import, of ours, only itself, db/, src/domain/ and src/ids.ts.',
      from: { path: '^src/storage/' },
      to: { path: OURS, pathNot: '^src/storage/|^db/|^src/domain/|^src/ids\\.ts$' },
    },
    {
      name: 'mcp-goes-through-the-api',
      severity: 'error',
      comment:
        'src/mcp/ (the MCP server) calls the HTTP API for every tool, so that every rule, error and rate limit is the API\'s: of ours it may import only itself, src/spec.ts, src/auth/authenticate.ts and src/auth/internal-call.ts (for /mcp itself and its in-process calls), src/oauth/scopes.ts (the names of OAuth scopes) and src/dashboard/links.ts (the approval link); never services, db/ or handlers/.',
      from: { path: '^src/mcp/' },
      to: {
        path: OURS,
        pathNot: '^src/mcp/|^src/spec\\.ts$|^src/auth/(authenticate|internal-call)\\.ts$|^src/oauth/scopes\\.ts$|^src/dashboard/links\\.ts$',
      },
    },
    {
      name: 'examples-use-the-api-only',
      severity: 'error',
      comment: 'examples/ are API clients written against the spec: of ours they may import only src/generated/ (types from openapi.yaml).',
      from: { path: '^examples/' },
      to: { path: OURS, pathNot: '^examples/|^src/generated/' },
    },
    {
      name: 'web-uses-the-api-only',
      severity: 'error',
      comment:
        'web/ (the dashboard, run in the browser) calls the HTTP API: of ours it may import only web/ and src/generated/ (types from openapi.yaml).',
      from: { path: '^web/' },
      to: { path: OURS, pathNot: '^web/|^src/generated/' },
    },
    {
      name: 'llm-is-self-contained',
      severity: 'error',
      comment:
        'src/llm/ (the chat-completions call) may import, of ours, only itself, types from src/config.ts and src/capped-body.ts (a leaf, reading the answer): facts come in, JSON goes out.',
      from: { path: '^src/llm/' },
      to: { path: OURS, pathNot: '^src/llm/|^src/config\\.ts$|^src/capped-body\\.ts$' },
    },
    {
      name: 'llm-is-self-contained',
      severity: 'error',
      comment: 'src/llm/ may import src/config.ts only with `import type`: settings are handed in.',
      from: { path: '^src/llm/' },
      to: { path: '^src/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'capped-body-is-a-leaf',
      severity: 'error',
      comment: 'src/capped-body.ts (reading an outside answer up to a size) imports nothing of ours, so that every layer that calls out may use it.',
      from: { path: '^src/capped-body\\.ts$' },
      to: { path: OURS },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves: an import this tool cannot resolve would escape every rule above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Follow our own files only; packages are recorded as the import's target but not descended into.
    doNotFollow: { path: 'node_modules' },
    // Clients generated by `npm run check:sdks` (git-ignored) and the usage files that import them:
    // that check typechecks both; without a run the imports do not resolve.
    exclude: { path: '^\\.sdk-check/|^scripts/sdk-check/[^/]+\\.usage\\.ts$' },
    moduleSystems: ['es6', 'cjs'],
    // Read TypeScript before compilation: `import type` is a dependency too (marked type-only).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      // ESM + package.json "exports", as Node resolves them; `.ts` specifiers resolve as written.
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
