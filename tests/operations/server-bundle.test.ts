// The bundles (scripts/server-bundle.ts), what `npm start` and `npm run cli` run: built from the sources,
// stale once a source is newer, and what the sources load late (an import() of a package) still
// loads late.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BUNDLE, SERVER_BUNDLE, buildBundles, bundleState } from '../../scripts/server-bundle.ts';
import { CLI_NODE_ARGS } from '../../scripts/start-command.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** The static imports at the top of an ES module: what loading it loads. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$|^import\s*"([^"]+)";?$/gm)].map((m) => m[1] ?? m[2]!);
}

describe('the server bundle', () => {
  it('bundles a checkout into dist/server.js, types stripped, its own modules inlined, packages left to import; stale once a source is newer', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-bundle-'));
    roots.push(root);
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }');
    fs.writeFileSync(
      path.join(root, 'src/server.ts'),
      "import { two } from './two.ts';\nconst n: number = 1;\nconst { EOL } = await import('node:os');\nconsole.log(n + two + EOL.length);\n",
    );
    fs.writeFileSync(path.join(root, 'src/two.ts'), "import path from 'node:path';\nexport const two: number = path.sep.length + 1;\n");
    expect(bundleState(root)).toBe('missing');

    const [entry = '', ...others] = await buildBundles(root);
    expect(entry).toBe(path.join(root, 'dist/server.js'));
    expect(others).toEqual([]); // this checkout has no src/cli.ts
    expect(bundleState(root)).toBe('current');
    const code = fs.readFileSync(entry, 'utf8');
    expect(code).not.toContain(': number');
    expect(code).toContain('path.sep.length + 1');
    expect(code).toContain('import("node:os")');
    expect(staticImports(code)).toEqual(['node:path']);
    expect(fs.readdirSync(path.join(root, 'dist')).sort()).toEqual(['server.js', 'server.js.map']);

    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'src/two.ts'), later, later);
    expect(bundleState(root)).toBe('stale');
  });

  it("keeps what the server loads on first use (the MCP SDK, zod, file-type, fast-xml-parser, Stripe, YAML) out of the entry's static imports", () => {
    // Built by the tests' global setup (tests/setup/builds.ts), as `npm start` builds it.
    const imports = staticImports(fs.readFileSync(SERVER_BUNDLE, 'utf8'));
    expect(imports).toContain('fastify');
    expect(imports).toContain('pg-boss');
    const late = imports.filter((i) =>
      /^(@modelcontextprotocol\/|zod|file-type|fast-xml-parser|stripe|yaml|vite|ioredis|nodemailer)/.test(i),
    );
    expect(late).toEqual([]);
  });

  it('bundles the CLI too: `npm run cli` runs dist/cli.js, after rebuilding the bundles when a source is newer', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    // Its one flag: a command lives about a second, too short for V8's optimizing tier (scripts/start-command.ts).
    expect(manifest.scripts.cli).toBe('node --liftoff-only dist/cli.js');
    expect(manifest.scripts.precli).toContain('node scripts/build-server.ts --if-needed');
    const help = spawnSync(process.execPath, [...CLI_NODE_ARGS, CLI_BUNDLE, 'help'], {
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: npm run -s cli -- <command> [options]');
  });
});
