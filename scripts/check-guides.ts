// `npm run check:guides`: runs every walkthrough of docs/guide/ (each docs/guide/*.sh that starts with
// `#!`; the others are parts the walkthroughs source) from the repository root, as a reader would (`bash docs/guide/<name>.sh`), and
// checks that it printed what its guide shows. The expected output is in the script itself: a comment
// line right after a command (or right after another such line) is that command's output, as the guide
// shows it, with `…` standing for what differs from run to run (ids, times, paths); the outputs of the
// scripts it sources (`. docs/guide/<name>.sh`) count too. The lines must appear in that order in what
// the script printed; other lines may come between them.
// A walkthrough that exits 77 lacks what it needs (production.sh: a Postgres) and is skipped, except
// under CI=true. `npm run check:guides -- credits disputes` runs only those; GUIDES_CONCURRENCY (2) at
// a time. Needs the server's bundle (npm ci makes it), curl and jq.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const guides = path.join(root, 'docs', 'guide');
/** Longest a walkthrough may run: a first start on a loaded machine takes 20 s, a walkthrough starts up to two servers. */
const TIMEOUT_MS = 300_000;
const SKIPPED = 77;

export interface Expected {
  /** Where it is shown: the script (or the part it sources) and the line. */
  at: string;
  text: string;
}

/** The output comments of a walkthrough, in order, those of the parts it sources in their place (see the header). */
export function expectedOutputs(file: string): Expected[] {
  const expected: Expected[] = [];
  let previous: 'command' | 'output' | 'other' = 'other';
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const line = raw.trimEnd();
      const sourced = /^\. (docs\/guide\/[\w-]+\.sh)$/.exec(line);
      if (sourced) {
        expected.push(...expectedOutputs(path.join(root, sourced[1]!)));
        previous = 'other';
      } else if (line.startsWith('#')) {
        // `#` alone shows an empty line of output.
        const isOutput = (previous === 'command' || previous === 'output') && (line.startsWith('# ') || line === '#');
        if (isOutput) expected.push({ at: `${path.relative(root, file)}:${i + 1}`, text: line.slice(2) });
        previous = isOutput ? 'output' : 'other';
      } else {
        previous = line.trim() === '' ? 'other' : 'command';
      }
    });
  return expected;
}

const pattern = (text: string) =>
  new RegExp(
    `^${text
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** The first expected line not printed in order, or undefined when all were. */
export function firstMissing(expected: Expected[], printed: string[]): Expected | undefined {
  let at = 0;
  for (const e of expected) {
    const re = pattern(e.text);
    while (at < printed.length && !re.test(printed[at]!.trimEnd())) at++;
    if (at === printed.length) return e;
    at++;
  }
  return undefined;
}

function run(file: string): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('bash', [path.relative(root, file)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: performance.now() - started });
    });
  });
}

async function main(): Promise<void> {
  for (const tool of ['curl', 'jq']) {
    const found = process.env.PATH?.split(':').some((dir) => fs.existsSync(path.join(dir, tool)));
    if (!found) throw new Error(`the walkthroughs need ${tool} (apt-get install ${tool})`);
  }
  if (!fs.existsSync(path.join(root, 'dist', 'server.js'))) throw new Error('no dist/server.js: run npm ci (or npm run build) first');
  const only = process.argv.slice(2);
  const files = fs
    .readdirSync(guides)
    .filter((f) => f.endsWith('.sh') && fs.readFileSync(path.join(guides, f), 'utf8').startsWith('#!'))
    .filter((f) => only.length === 0 || only.includes(f.replace(/\.sh$/, '')))
    .sort();
  // A few at a time, each on its own port and in its own folder: much of a walkthrough is waiting
  // on its server. Reported in order once all have run.
  const concurrency = Math.max(1, Number(process.env.GUIDES_CONCURRENCY ?? 2));
  const results: Awaited<ReturnType<typeof run>>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, files.length) }, async () => {
      for (let i = next++; i < files.length; i = next++) results[i] = await run(path.join(guides, files[i]!));
    }),
  );
  let failed = 0;
  for (const [i, name] of files.entries()) {
    const { code, output, ms } = results[i]!;
    const expected = expectedOutputs(path.join(guides, name));
    const missing = firstMissing(expected, output.split('\n'));
    const took = `${(ms / 1000).toFixed(1)} s`;
    if (code === 0 && !missing) {
      console.log(`ok   ${name}: ${expected.length} outputs as shown, ${took}`);
      continue;
    }
    // Exit 77: what the walkthrough needs is not here (a server Postgres); CI must have it.
    if (code === SKIPPED && process.env.CI !== 'true') {
      console.log(`skip ${name}: ${output.trim().split('\n').pop()}`);
      continue;
    }
    failed++;
    const why = code !== 0 ? `exited ${code}` : `did not print the output shown at ${missing!.at}: ${missing!.text}`;
    console.log(`FAIL ${name}: ${why} (${took}); its last lines:`);
    for (const line of output.trimEnd().split('\n').slice(-30)) console.log(`     | ${line}`);
  }
  console.log(`guides: ${files.length - failed} of ${files.length} walkthroughs ran as their guides show`);
  if (failed) process.exitCode = 1;
}

if (import.meta.main) await main();
