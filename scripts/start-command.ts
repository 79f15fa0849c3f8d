// What `npm start` and `npm run cli` run, read from package.json's scripts (`node [flags]
// dist/server.js`, `node [flags] dist/cli.js`), so that the benchmarks and the tests' processes run
// them the same way. `npm start` has no flags (scripts/check-stock.ts holds it to `node
// dist/server.js`): what an operator tunes goes in NODE_OPTIONS and the environment, which those
// processes inherit. The CLI has one, --liftoff-only: a command on PGlite lives about a second, and
// V8's optimizing tier otherwise compiles one function of PGlite's WebAssembly (its SQL parser)
// in the background for longer than that, with hundreds of MB, and the process waits for it at exit
// (docs/performance.md, "The CLI").
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SCRIPTS: Record<string, string> = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;

/** package.json's start script. */
export const START_SCRIPT: string = SCRIPTS.start!;

/** The flags a script gives node before `bundle`. */
function nodeArgs(name: string, bundle: string): string[] {
  const script = SCRIPTS[name] ?? '';
  const parts = new RegExp(`^node ((?:--\\S+ )*)${bundle.replace(/[./]/g, '\\$&')}$`).exec(script);
  if (!parts) throw new Error(`package.json's ${name} script no longer reads "node [flags] ${bundle}": ${script}`);
  return parts[1]!.trim().split(' ').filter(Boolean);
}

/** The flags `npm start` gives node before the server's bundle. */
export const SERVER_NODE_ARGS: string[] = nodeArgs('start', 'dist/server.js');

/** The flags `npm run cli` gives node before the CLI's bundle. */
export const CLI_NODE_ARGS: string[] = nodeArgs('cli', 'dist/cli.js');
