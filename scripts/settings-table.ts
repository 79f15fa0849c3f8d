// `npm run docs:settings`: renders src/settings.ts's SETTINGS as the tables of docs/guide/settings.md,
// between its `<!-- settings:start -->` and `<!-- settings:end -->` lines.
// `npm run check:settings` (`--check`): fails, naming the first difference, when the file's tables
// are not what the code renders, or when the app's code reads a variable from process.env that
// SETTINGS does not declare. `--doc <file>` checks or writes another copy.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DeclaredSetting, SETTINGS } from '../src/settings.ts';
import { appFiles } from './check-stock.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SETTINGS_DOC = 'docs/guide/settings.md';
const START = '<!-- settings:start -->';
const END = '<!-- settings:end -->';

/** Each group of settings, under the sentence that introduces its table (none for the server's). */
const GROUPS: { readBy: DeclaredSetting['readBy']; intro?: string }[] = [
  { readBy: undefined },
  { readBy: 'mcp-stdio', intro: 'Read by the stdio MCP server (`npm run mcp`, which an agent starts), not by the server:' },
  { readBy: 'tests', intro: 'Read in tests only:' },
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The lines between the markers, as the code declares them. */
export function renderSettings(settings: Record<string, DeclaredSetting> = SETTINGS): string[] {
  const lines = [`<!-- Generated from SETTINGS in src/settings.ts by \`npm run docs:settings\`: edit there, not here. -->`];
  for (const { readBy, intro } of GROUPS) {
    const rows = Object.entries(settings).filter(([, s]) => s.readBy === readBy);
    if (!rows.length) continue;
    lines.push('');
    if (intro) lines.push(intro, '');
    lines.push('| Variable | Default | Meaning |', '|---|---|---|');
    for (const [name, s] of rows) lines.push(`| \`${name}\` | ${cell(s.default)} | ${cell(s.description)} |`);
  }
  lines.push('');
  return lines;
}

/** The doc's lines between the markers, and the line number of the first; undefined without both markers. */
function between(doc: string): { lines: string[]; firstLine: number } | undefined {
  const all = doc.split('\n');
  const start = all.indexOf(START);
  const end = all.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return { lines: all.slice(start + 1, end), firstLine: start + 2 };
}

/** What differs first between the doc's tables and the rendered ones, in words; undefined when nothing does. */
export function settingsDocDifference(doc: string, rendered: string[], docName = SETTINGS_DOC): string | undefined {
  const found = between(doc);
  if (!found) return `${docName} has no "${START}" line followed by an "${END}" line`;
  const { lines, firstLine } = found;
  for (let i = 0; i < Math.max(lines.length, rendered.length); i++) {
    if (lines[i] === rendered[i]) continue;
    const where = `${docName}:${firstLine + i}`;
    if (lines[i] === undefined) return `${where}: the code renders a line the file lacks:\n  code: ${rendered[i]}`;
    if (rendered[i] === undefined) return `${where}: the file has a line the code does not render:\n  file: ${lines[i]}`;
    return `${where} differs from what src/settings.ts renders:\n  file: ${lines[i]}\n  code: ${rendered[i]}`;
  }
  return undefined;
}

/** The doc with its tables replaced by the rendered ones. */
export function withSettings(doc: string, rendered: string[]): string {
  const all = doc.split('\n');
  const start = all.indexOf(START);
  const end = all.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SETTINGS_DOC} needs a "${START}" line and an "${END}" line after it`);
  return [...all.slice(0, start + 1), ...rendered, ...all.slice(end)].join('\n');
}

const ENV_READ = /process\.env(?:\.([A-Za-z_$][\w$]*)|\[\s*(?:'([^']*)'|"([^"]*)"|([^\]]*))\s*\])/g;

/**
 * Each read of process.env by name in the app's code (src/, db/, handlers/, jobs/) of a variable
 * SETTINGS does not declare, and each read by a computed name, which no table can show.
 */
export function undeclaredEnvReads(root: string, declared: readonly string[] = Object.keys(SETTINGS)): string[] {
  const problems: string[] = [];
  for (const file of appFiles(root)) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    for (const [i, line] of lines.entries()) {
      for (const match of line.matchAll(ENV_READ)) {
        const name = match[1] ?? match[2] ?? match[3];
        if (name === undefined) problems.push(`${file}:${i + 1}: reads process.env[${match[4]}], a name no settings table can show`);
        else if (!declared.includes(name))
          problems.push(`${file}:${i + 1}: reads ${name} from process.env, which SETTINGS in src/settings.ts does not declare`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const docArg = args.indexOf('--doc');
  const docName = docArg >= 0 ? args[docArg + 1]! : SETTINGS_DOC;
  const docPath = path.resolve(docArg >= 0 ? process.cwd() : ROOT, docName);
  const doc = fs.readFileSync(docPath, 'utf8');
  const rendered = renderSettings();
  if (args.includes('--check')) {
    const problems = [settingsDocDifference(doc, rendered, docName), ...undeclaredEnvReads(ROOT)].filter((p) => p !== undefined);
    if (problems.length) {
      console.error(
        `settings: ${problems.join('\n')}\nThe tables come from SETTINGS in src/settings.ts: change it there, then run npm run docs:settings.`,
      );
      process.exitCode = 1;
    } else {
      console.log(`settings: ${docName} shows every setting src/settings.ts declares, and the app reads no other`);
    }
  } else {
    fs.writeFileSync(docPath, withSettings(doc, rendered));
    console.log(`settings: wrote ${Object.keys(SETTINGS).length} settings into ${docName}`);
  }
}
