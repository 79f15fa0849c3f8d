// Import rules for gigmarket: `npm run lint:imports` (also part of `npm run lint` and .ci/run).
//
// Layers, inside out:
//   src/domain/          pure rules: imports only itself, src/errors.ts and the types generated from the spec
//   db/                  persistence: imports only itself, src/domain/ and src/errors.ts
//   src/services/        use cases: no transport (handlers/, src/http/, fastify values); of jobs/ only jobs/queues.ts
//   handlers/            HTTP handlers: call src/services/, never db/
//   src/webhooks/        webhook delivery's building blocks: of ours only src/errors.ts and src/config.ts types
//   src/app.ts           the only module outside handlers/ that imports handlers/
//   src/notifications/   email sender and templates: imports only itself and src/config.ts
//   src/storage/         the file store: imports only itself, db/, src/domain/ and src/ids.ts
//   src/mcp/             the MCP server: calls the HTTP API, so of ours only itself, src/spec.ts and the API's authentication
//   examples/            example agents: of ours only the types generated from the spec (they are API clients)
//   src/llm/             the chat-completions call: imports only itself, src/config.ts types and src/capped-body.ts (a leaf)
//   src/capped-body.ts   reading an outside answer up to a size: a leaf, imports nothing of ours
//   web/                 the owners' dashboard (browser code): of ours only itself and the types generated from
//                        the spec (it calls the HTTP API, like an agent)
//   src/dashboard/       building and serving web/dist: never web/'s code itself
// tests/ and scripts/ may import anything; they are checked only for cycles (and that their imports resolve).
// Not cruised: .sdk-check/ and scripts/sdk-check/*.usage.ts (generated clients and their usage, see below).
//
// "Ours" = a file of this repository, i.e. a path that does not go through node_modules/
// and is not a Node built-in. Paths are relative to the repository root.

/** Ours: the top-level folders and root files of this repository (not node_modules, not built-ins). */
const OURS = '^(src|db|handlers|jobs|tests|scripts|examples|web)/|^[^/]+\\.ts$';
/** tests/ and scripts/ are exempt from every rule but no-circular (and not-to-unresolvable). */
const EXEMPT = '^(tests|scripts)/';
/** fastify and the packages built for it: fastify, @fastify/*, fastify-*, @scalar/fastify-api-reference. */
const FASTIFY = '(^|/)node_modules/(fastify/|@fastify/|fastify-|@scalar/fastify-)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
      comment: 'src/domain/ may import, of ours, only src/domain/, src/errors.ts and src/generated/ (types from the spec).',
      from: { path: '^src/domain/' },
      to: { path: OURS, pathNot: '^src/domain/|^src/errors\\.ts$|^src/generated/' },
    },
    {
      name: 'db-depends-on-nothing-above',
      severity: 'error',
      comment: 'db/ may import, of ours, only db/, src/domain/, src/errors.ts and src/project-root.ts (a leaf); never the rest of src/, handlers/ or jobs/.',
      from: { path: '^db/' },
      to: { path: OURS, pathNot: '^db/|^src/domain/|^src/errors\\.ts$|^src/project-root\\.ts$' },
    },
    {
      name: 'webhooks-are-self-contained',
      severity: 'error',
      comment: 'src/webhooks/ may import, of ours, only src/webhooks/, src/errors.ts and types from src/config.ts.',
      from: { path: '^src/webhooks/' },
      to: { path: OURS, pathNot: '^src/webhooks/|^src/errors\\.ts$|^src/config\\.ts$' },
    },
    {
      name: 'webhooks-are-self-contained',
      severity: 'error',
      comment: 'src/webhooks/ may import src/config.ts only with `import type`: settings are handed in.',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'handlers-go-through-services',
      severity: 'error',
      comment: 'handlers/ may not import db/: they call src/services/.',
      from: { path: '^handlers/' },
      to: { path: '^db/' },
    },
    {
      name: 'services-are-transport-free',
      severity: 'error',
      comment: 'src/services/ may not import handlers/ or src/http/.',
      from: { path: '^src/services/' },
      to: { path: '^(handlers|src/http)/' },
    },
    {
      name: 'services-are-transport-free',
      severity: 'error',
      comment: 'src/services/ may import fastify (or a fastify plugin) only with `import type`.',
      from: { path: '^src/services/' },
      to: { path: FASTIFY, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-are-transport-free',
      severity: 'error',
      comment: 'Of jobs/, src/services/ may import only jobs/queues.ts.',
      from: { path: '^src/services/' },
      to: { path: '^jobs/', pathNot: '^jobs/queues\\.ts$' },
    },
    {
      name: 'nobody-imports-handlers',
      severity: 'error',
      comment: 'Only handlers/ and src/app.ts import handlers/.',
      from: { pathNot: `^handlers/|^src/app\\.ts$|${EXEMPT}` },
      to: { path: '^handlers/' },
    },
    {
      name: 'jobs-not-from-handlers',
      severity: 'error',
      comment: 'jobs/ may not import handlers/.',
      from: { path: '^jobs/' },
      to: { path: '^handlers/' },
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
        'src/mcp/ (the MCP server) calls the HTTP API for every tool, so that every rule, error and rate limit is the API\'s: of ours it may import only itself, src/spec.ts, src/auth/authenticate.ts (for /mcp itself) and src/dashboard/links.ts (the approval link); never services, db/ or handlers/.',
      from: { path: '^src/mcp/' },
      to: { path: OURS, pathNot: '^src/mcp/|^src/spec\\.ts$|^src/auth/authenticate\\.ts$|^src/dashboard/links\\.ts$' },
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
      name: 'nobody-imports-web',
      severity: 'error',
      comment: 'web/ is browser code, built by Vite: the server only serves its build (src/dashboard/), never imports it (tests may).',
      from: { pathNot: `^web/|${EXEMPT}` },
      to: { path: '^web/' },
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
