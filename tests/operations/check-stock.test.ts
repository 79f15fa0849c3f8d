// `npm run check:stock` (scripts/check-stock.ts): this checkout is stock, and a checkout with a
// patch, patch-package, flags on npm start, run-time code or Drizzle's internals in the app is not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkStock } from '../../scripts/check-stock.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A checkout (not a git one: every .ts file of the app's folders counts) with these files. */
function checkout(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-stock-'));
  made.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

const stockPackage = JSON.stringify({ scripts: { start: 'node dist/server.js' }, dependencies: { postgres: '3.4.9' } });

describe('check:stock', () => {
  it('passes this checkout', () => {
    expect(checkStock(path.resolve(import.meta.dirname, '..', '..'))).toEqual([]);
  });

  it('passes stock code, words that merely contain "eval" included', () => {
    const root = checkout({
      'package.json': stockPackage,
      'src/search.ts': 'export const retrieval = (x: string) => evaluate(x);\nconst evaluate = (x: string) => x;\n',
      'tests/fork.test.ts': "new Function('return 1');\n", // outside the app's folders
    });
    expect(checkStock(root)).toEqual([]);
  });

  it('names each thing that is not stock, with its file and line', () => {
    const root = checkout({
      'package.json': JSON.stringify({
        scripts: { start: 'node --expose-gc dist/server.js', postinstall: 'patch-package' },
        devDependencies: { 'patch-package': '8.0.1' },
      }),
      'patches/postgres+3.4.9.patch': '',
      'src/rows.ts': "export const make = new Function('row', 'return row');\nexport const run = (s: string) => eval(s);\n",
      'db/schema-read.ts': 'export const columns = (t: any) => t._.columns;\n',
      'db/lean.ts': "import { PostgresJsPreparedQuery } from 'drizzle-orm/postgres-js';\n",
      'jobs/raw.ts': 'export const client = (db: any) => db.session.client;\n',
      'handlers/tag.ts': "import { StringChunk } from 'drizzle-orm';\nexport const q = (db: any) => db.queryWithCache;\n",
      'src/queue.ts': "export { default } from '../node_modules/postgres/src/queue.js';\n",
    });
    const problems = checkStock(root);
    const expected = [
      /^patches\/ exists/,
      /^package\.json: patch-package is in devDependencies/,
      /^package\.json: the postinstall script runs patch-package/,
      /^package\.json: npm start must be exactly "node dist\/server\.js"/,
      /^src\/rows\.ts:1: code made at run time \(new Function\)/,
      /^src\/rows\.ts:2: code made at run time \(eval\)/,
      /^db\/schema-read\.ts:1: Drizzle's private `_` fields/,
      /^db\/lean\.ts:1: Drizzle's postgres\.js driver classes/,
      /^jobs\/raw\.ts:1: Drizzle's private driver client/,
      /^handlers\/tag\.ts:1: a Drizzle statement built or read chunk by chunk/,
      /^handlers\/tag\.ts:2: Drizzle's private query execution/,
      /^src\/queue\.ts:1: a path into node_modules/,
    ];
    for (const pattern of expected)
      expect(
        problems.filter((p) => pattern.test(p)),
        String(pattern),
      ).toHaveLength(1);
    expect(problems).toHaveLength(expected.length);
  });
});
