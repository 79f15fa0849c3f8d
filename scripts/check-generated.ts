// `npm run check:types`: fails when src/generated/api.d.ts is not what openapi-typescript makes
// from openapi.yaml today (someone edited the spec and forgot `npm run gen:types`).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkedIn = path.join(root, 'src/generated/api.d.ts');
const cli = path.join(root, 'node_modules/openapi-typescript/bin/cli.js');
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-types-'));
const fresh = path.join(tmpDir, 'api.d.ts');

/** The arguments of `npm run gen:types` (one source of truth), writing to `fresh` instead. */
function genTypesArgs(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...args] = pkg.scripts['gen:types']!.trim().split(/\s+/);
  if (command !== 'openapi-typescript') throw new Error(`gen:types should run openapi-typescript, not ${command}`);
  const out = args.findIndex((a) => a === '-o' || a === '--output');
  if (out < 0 || args[out + 1] !== 'src/generated/api.d.ts') throw new Error('gen:types should write src/generated/api.d.ts with -o');
  args[out + 1] = fresh;
  return args;
}

try {
  // Run from the root, as npm does, so that it finds redocly.yaml too.
  execFileSync(process.execPath, [cli, ...genTypesArgs()], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const want = fs.readFileSync(fresh, 'utf8');
  const have = fs.existsSync(checkedIn) ? fs.readFileSync(checkedIn, 'utf8') : '';
  if (want !== have) {
    const a = have.split('\n');
    const b = want.split('\n');
    let line = 0;
    while (line < a.length && line < b.length && a[line] === b[line]) line++;
    console.error(
      `src/generated/api.d.ts is stale: it differs from openapi.yaml's types from line ${line + 1}\n` +
        `  checked in: ${JSON.stringify(a[line] ?? '<end of file>')}\n` +
        `  expected:   ${JSON.stringify(b[line] ?? '<end of file>')}\n` +
        'Run `npm run gen:types` and commit the result.',
    );
    process.exitCode = 1;
  } else {
    console.log('src/generated/api.d.ts is current');
  }
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
