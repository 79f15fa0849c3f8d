// The server as `npm start` runs it, and the operator CLI as `npm run cli` runs it: our own
// TypeScript (src/, handlers/, db/, jobs/) bundled by esbuild into dist/server.js and dist/cli.js,
// packages left to node_modules. Run from source instead, Node strips every file's types at start
// with amaro (swc built to WebAssembly): for the server, amaro then stays resident for its whole
// life and is part of every cold start (docs/performance.md); for the CLI, it was most of a
// command's time (0.7 s of `--help`'s 0.75). The tests and the scripts still run the sources.
//
// - One file, no code splitting: what the sources load late must `import()` the package itself
//   (as src/mcp/server.ts does the MCP SDK), since a package a bundled module imports statically
//   loads with the bundle. Splitting would keep such modules apart, but with it the process held
//   more resident at idle (`npm run bench:start`), for reasons not pinned down.
// - The bundle is written beside its final name and renamed into place, so a server starting
//   meanwhile reads the old build or the new one, never half of one.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../src/project-root.ts';
import { newestMtime } from '../src/newest-mtime.ts';

/** Each entry point and its bundle, relative to the checkout's root. */
const BUNDLES = [
  { entry: 'src/server.ts', bundle: 'dist/server.js' },
  { entry: 'src/cli.ts', bundle: 'dist/cli.js' },
] as const;
export const SERVER_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'server.js');
export const CLI_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'cli.js');
/** What the bundles are made of: when any of it is newer than a bundle, that bundle is stale. */
const SOURCES = ['src', 'handlers', 'db', 'jobs', 'package-lock.json', 'tsconfig.json'];

/** The bundles whose entry point this checkout has. */
const bundlesOf = (root: string) => BUNDLES.filter((b) => fs.existsSync(path.join(root, b.entry)));

export function bundleState(root = PROJECT_ROOT): 'missing' | 'stale' | 'current' {
  const bundles = bundlesOf(root).map((b) => path.join(root, b.bundle));
  if (bundles.some((b) => !fs.existsSync(b))) return 'missing';
  const built = Math.min(...bundles.map((b) => fs.statSync(b).mtimeMs));
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > built) ? 'stale' : 'current';
}

/**
 * Packages bundled with our code rather than loaded from node_modules. drizzle-orm: its package.json
 * is a large `exports` map, and Node parses it again for each module of drizzle it loads (to learn
 * each file's module format): much garbage at start, after which V8 kept the emptied heap pages in
 * its pool, resident for good (`node --trace-gc` shows them pooled; docs/performance.md, Memory).
 */
const BUNDLED_PACKAGES = new Set(['drizzle-orm']);

/** Every package the checkout depends on but those above, each with its subpaths. */
function externalPackages(root: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((n) => !BUNDLED_PACKAGES.has(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/** Bundles one of our scripts (`entry`, relative to `root`) into `outfile`, packages left to node_modules. */
export async function bundle(entry: string, outfile: string, root = PROJECT_ROOT): Promise<void> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.12',
    external: externalPackages(root),
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  // The map first: once the script is the new one, its map is too.
  const last = (file: string) => (file === outfile ? 1 : 0);
  for (const file of [...result.outputFiles].sort((a, b) => last(a.path) - last(b.path))) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
}

/** Bundles the server and the CLI into dist/ (a few hundred milliseconds); returns the bundles' paths. */
export async function buildBundles(root = PROJECT_ROOT): Promise<string[]> {
  const built: string[] = [];
  for (const b of bundlesOf(root)) {
    const outfile = path.join(root, b.bundle);
    await bundle(b.entry, outfile, root);
    built.push(outfile);
  }
  return built;
}
