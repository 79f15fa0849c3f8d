// `npm run check:stock`: the core runs its dependencies as published, through their public APIs
// (docs/architecture.md §2). Fails when a patches/ folder exists or patch-package is a dependency
// (a fork of an installed package), when `npm start` is more than `node dist/server.js` (an
// operator's node and allocator settings belong in NODE_OPTIONS and the environment), or when a
// tracked .ts file of the app (src/, db/, handlers/, jobs/) makes code at run time or reads one of
// the Drizzle and postgres.js internals this code once read.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders of the app's own code (tests, scripts and benches may look inside a package). */
const APP_DIRS = ['src', 'db', 'handlers', 'jobs'];

/** What a line of the app's code may not hold, and why. */
const FORBIDDEN: { pattern: RegExp; why: string }[] = [
  { pattern: /\bnew\s+Function\s*\(/, why: 'code made at run time (new Function)' },
  { pattern: /(^|[^\w.$])eval\s*\(/, why: 'code made at run time (eval)' },
  { pattern: /\.session\.client\b/, why: "Drizzle's private driver client (db.session.client)" },
  { pattern: /\bqueryWithCache\b/, why: "Drizzle's private query execution (queryWithCache)" },
  { pattern: /\._\.\w/, why: "Drizzle's private `_` fields (table._.columns, query._.selectedFields)" },
  { pattern: /Symbol\.for\(\s*['"`]drizzle:/, why: "Drizzle's symbol-keyed internals (Symbol.for('drizzle:...'))" },
  {
    pattern: /\bPostgresJs(PreparedQuery|Session|Transaction)\b/,
    why: "Drizzle's postgres.js driver classes, whose fields are private (db/lean-prepared.ts read them)",
  },
  {
    pattern: /\b(queryChunks|StringChunk)\b/,
    why: "a Drizzle statement built or read chunk by chunk (db/sql.ts's own tag did): Drizzle's sql tag builds it",
  },
  { pattern: /['"`][^'"`]*node_modules\//, why: "a path into node_modules: a package's files beyond its exports" },
];

/**
 * The tracked files under `dirs` (the app's folders unless given) whose names end with one of
 * `extensions` (.ts unless given); every such file there when `root` is not a git checkout.
 */
export function appFiles(root: string, dirs: readonly string[] = APP_DIRS, extensions: readonly string[] = ['.ts']): string[] {
  const wanted = (file: string) => extensions.some((e) => file.endsWith(e));
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', ...dirs], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\0').filter(wanted);
  } catch {
    const walk = (dir: string): string[] =>
      fs.existsSync(path.join(root, dir))
        ? fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
            const rel = path.join(dir, e.name);
            return e.isDirectory() ? walk(rel) : wanted(e.name) ? [rel] : [];
          })
        : [];
    return dirs.flatMap(walk);
  }
}

/** What is not stock in the checkout at `root`, one line each; empty when all is. */
export function checkStock(root: string): string[] {
  const problems: string[] = [];
  if (fs.existsSync(path.join(root, 'patches'))) problems.push('patches/ exists: installed packages are used as published, never patched');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    if (pkg[field]?.['patch-package'] !== undefined) problems.push(`package.json: patch-package is in ${field}`);
  }
  for (const [name, script] of Object.entries(pkg.scripts ?? {})) {
    if (script.includes('patch-package')) problems.push(`package.json: the ${name} script runs patch-package`);
  }
  const start = pkg.scripts?.start;
  if (start !== 'node dist/server.js')
    problems.push(`package.json: npm start must be exactly "node dist/server.js", not ${JSON.stringify(start)}`);
  for (const file of appFiles(root)) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    for (const [i, line] of lines.entries()) {
      for (const { pattern, why } of FORBIDDEN) if (pattern.test(line)) problems.push(`${file}:${i + 1}: ${why}: ${line.trim()}`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = checkStock(path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (problems.length) {
    console.error(`not stock (docs/architecture.md §2):\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('stock: no patches, no patch-package, npm start is node dist/server.js, no private internals or run-time code in the app');
  }
}
