// What `npm start` runs, read from package.json's start script (`node [flags] dist/server.js`), so
// that the benchmarks and the tests' server processes run the server the same way. It has no
// flags (scripts/check-stock.ts holds it to `node dist/server.js`): what an operator tunes goes in
// NODE_OPTIONS and the environment, which those processes inherit.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** package.json's start script. */
export const START_SCRIPT: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;

const parts = /^node ((?:--\S+ )*)dist\/server\.js$/.exec(START_SCRIPT);
if (!parts) throw new Error(`package.json's start script no longer reads "node [flags] dist/server.js": ${START_SCRIPT}`);

/** The flags `npm start` gives node before the server's bundle. */
export const SERVER_NODE_ARGS: string[] = parts[1]!.trim().split(' ').filter(Boolean);
