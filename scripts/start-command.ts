// What `npm start` runs, read from package.json's start script, so that the benchmarks and the
// tests' server processes run the server the same way without a copy of its flags to keep in step.
// The script reads `node scripts/build-server.ts --if-needed && VAR=value ... exec node <flags> dist/server.js`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const start: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
const parts = /&& ((?:\w+=\S+ )*)exec node ((?:--\S+ )*)dist\/server\.js$/.exec(start);
if (!parts)
  throw new Error(`package.json's start script no longer reads "... && [VAR=value ...] exec node <flags> dist/server.js": ${start}`);
const words = (s: string | undefined) => (s ?? '').trim().split(' ').filter(Boolean);

/**
 * The flags `npm start` gives node: --expose-gc for the memory trim (src/memory-trim.ts), two
 * against heap sizes V8 takes from the machine's memory (24 GiB here): the young generation capped
 * at 16 MB per semi-space (left to itself the server held ~100 MB more under load; 8 from
 * 2026-11-26 to 11-27, which took the scavenges' main-thread time from 325 to 460 ms over the
 * same 80,000 requests, and, since the memory trim, left the resident set where 16 does), and
 * the old generation at 1 GB, whose first collection limit is a
 * fraction of that cap: with the default cap, garbage grew to ~190 MB beside ~50 MB of live
 * objects before a full collection. And --no-allocation-site-pretenuring: about one server
 * process in six spent, for as long as it lived, 19-29 µs of V8's helper threads per request
 * against 2-9 (scavenges promoting, concurrent marking, sweeping: garbage reaching the old
 * generation); none of 17 did without pretenuring, which costs nothing measurable otherwise
 * (2026-11-28, docs/performance.md). The likely cause, which a release build of V8 cannot trace:
 * pretenuring, having seen many objects from one allocation site survive a scavenge (50
 * requests in flight), allocates that site's objects in the old generation from then on.
 */
export const SERVER_NODE_ARGS: string[] = words(parts[2]);

/**
 * The environment `npm start` sets: glibc's malloc with a fixed mmap threshold
 * (MALLOC_MMAP_THRESHOLD_). Left to itself, glibc raises the threshold after V8 frees the large
 * blocks it used compiling PGlite's WebAssembly, and keeps ~80 MB of freed memory resident for
 * good. A variable the caller already set wins.
 */
export const SERVER_ENV: Record<string, string> = Object.fromEntries(
  words(parts[1]).map((assignment) => assignment.split('=') as [string, string]),
);
