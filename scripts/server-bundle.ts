// The server as `npm start` runs it: its own TypeScript (src/, handlers/, db/, jobs/) bundled by
// esbuild into dist/server.js, packages left to node_modules. Run from source instead, Node strips
// every file's types at start with amaro (swc built to WebAssembly), and amaro then stays in the
// process: resident for its whole life, and part of every cold start (docs/performance.md). The
// tests, the CLI and the scripts still run the sources directly.
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

export const SERVER_ENTRY = 'src/server.ts';
export const SERVER_BUNDLE = path.join(PROJECT_ROOT, 'dist', 'server.js');
/** What the bundle is made of: when any of it is newer than the bundle, the bundle is stale. */
const SOURCES = ['src', 'handlers', 'db', 'jobs', 'package-lock.json', 'tsconfig.json'];

export function serverBundleState(root = PROJECT_ROOT): 'missing' | 'stale' | 'current' {
  const bundle = path.join(root, 'dist', 'server.js');
  if (!fs.existsSync(bundle)) return 'missing';
  const built = fs.statSync(bundle).mtimeMs;
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

/** Bundles the server into dist/server.js (a few hundred milliseconds); returns its path. */
export async function buildServer(root = PROJECT_ROOT): Promise<string> {
  const entry = path.join(root, 'dist', 'server.js');
  await bundle(SERVER_ENTRY, entry, root);
  return entry;
}
