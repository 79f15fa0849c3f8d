// `npm run check:settings` (scripts/settings-table.ts): docs/guide/settings.md shows the settings
// src/settings.ts declares, and the app's code reads no variable it does not declare; a doc or a
// read that drifts from the declaration fails the check, naming what differs. Beside it in CI,
// `npm run check:comments` (scripts/check-comments.ts): no comment of the code carries a date.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SETTINGS } from '../../src/settings.ts';
import { datedComments } from '../../scripts/check-comments.ts';
import { renderSettings, SETTINGS_DOC, settingsDocDifference, undeclaredEnvReads } from '../../scripts/settings-table.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const doc = fs.readFileSync(path.join(ROOT, SETTINGS_DOC), 'utf8');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-settings-'));
  made.push(dir);
  return dir;
}

/** `npm run check:settings` against another copy of the doc: its exit code and what it printed. */
function checkCopy(text: string): { code: number; output: string } {
  const file = path.join(tempDir(), 'settings.md');
  fs.writeFileSync(file, text);
  try {
    const output = execFileSync(process.execPath, ['scripts/settings-table.ts', '--check', '--doc', file], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, output };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, output: failed.stdout + failed.stderr };
  }
}

// No database: the embedded run only (tests/helpers/runs.ts).
describe.runIf(EMBEDDED_RUN)('check:settings', () => {
  it('finds the doc showing what the code declares, and no undeclared read', () => {
    expect(settingsDocDifference(doc, renderSettings())).toBeUndefined();
    expect(undeclaredEnvReads(ROOT)).toEqual([]);
  });

  it('shows every setting with the default loadConfig uses', () => {
    const rendered = renderSettings().join('\n');
    for (const name of Object.keys(SETTINGS)) expect(rendered).toContain(`| \`${name}\` |`);
    expect(rendered).toContain('| `PORT` | `3000` |');
    expect(loadConfig({}).port).toBe(3000);
    expect(rendered).toContain('| `RATE_LIMIT_WINDOW` | `1m` |');
    expect(loadConfig({}).rateLimit?.windowMs).toBe(60_000);
  });

  it('passes an unchanged copy, and fails a copy whose table was altered, naming the line', () => {
    expect(checkCopy(doc)).toMatchObject({ code: 0 });
    const altered = doc.replace('| `PORT` | `3000` |', '| `PORT` | `8080` |');
    expect(altered).not.toBe(doc);
    const line = altered.split('\n').findIndex((l) => l.startsWith('| `PORT` |')) + 1;
    const { code, output } = checkCopy(altered);
    expect(code).toBe(1);
    expect(output).toContain(`settings.md:${line} differs from what src/settings.ts renders`);
    expect(output).toContain('file: | `PORT` | `8080` |');
    expect(output).toContain('code: | `PORT` | `3000` |');
  });

  it('fails a copy missing a row, or the markers', () => {
    const withoutRow = doc
      .split('\n')
      .filter((l) => !l.startsWith('| `LOG_LEVEL` |'))
      .join('\n');
    expect(checkCopy(withoutRow)).toMatchObject({ code: 1 });
    expect(settingsDocDifference(doc.replace('<!-- settings:end -->', ''), renderSettings())).toMatch(/has no .* line/);
  });

  it('names a variable the app reads but does not declare, and a read by a computed name', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(
      path.join(root, 'src/reader.ts'),
      "const a = process.env.PORT;\nconst b = process.env.SECRET_SAUCE;\nconst c = process.env['OTHER'];\nconst d = process.env[name];\n",
    );
    expect(undeclaredEnvReads(root)).toEqual([
      'src/reader.ts:2: reads SECRET_SAUCE from process.env, which SETTINGS in src/settings.ts does not declare',
      'src/reader.ts:3: reads OTHER from process.env, which SETTINGS in src/settings.ts does not declare',
      'src/reader.ts:4: reads process.env[name], a name no settings table can show',
    ]);
  });
});

describe.runIf(EMBEDDED_RUN)('check:comments', () => {
  it('passes this checkout', () => {
    expect(datedComments(ROOT)).toEqual([]);
  });

  it('names each comment with a date, and leaves dates in code alone', () => {
    const root = tempDir();
    const files: Record<string, string> = {
      'src/a.ts': [
        "export const version = '2022-11-28'; // the API version: code, not a date in a comment",
        `export const url = \`http://x//2026-01-01/\${version}\`; // a date in a string after //: still code`,
        '/**',
        ' * Measured 3 ms on 2026-11-27.',
        ' */',
        'export const z = 2; // until 2026-11-26T10:00:00Z it was 3',
        '',
      ].join('\n'),
      'web/src/b.tsx': 'export const B = () => <p>Due 2026-12-01 {/* shown since 2026-11-20 */}</p>;\n',
      'web/src/c.css': '/* tuned 2026-11-25 */\np { margin: 0; }\n',
      'src/generated/api.d.ts': '/** @example 2026-11-21T12:00:00.000Z */\n',
      'tests/d.test.ts': "// 2026-11-21: tests' comments are checked too\nexpect(day).toBe('2026-11-21');\n",
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    expect(datedComments(root).sort()).toEqual([
      'src/a.ts:4: * Measured 3 ms on 2026-11-27.',
      'src/a.ts:6: export const z = 2; // until 2026-11-26T10:00:00Z it was 3',
      "tests/d.test.ts:1: // 2026-11-21: tests' comments are checked too",
      'web/src/b.tsx:1: export const B = () => <p>Due 2026-12-01 {/* shown since 2026-11-20 */}</p>;',
      'web/src/c.css:1: /* tuned 2026-11-25 */',
    ]);
  });
});
