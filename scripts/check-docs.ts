// `npm run check:docs`: what keeps the documentation honest without running anything.
// - README.md stays short enough to read in ten minutes (README_MAX_BYTES); the rest is in docs/guide/.
// - Every relative link in README.md and docs/**/*.md leads to a file that exists and, with a
//   #fragment, to a heading (GitHub's anchor for it) or an explicit id of that Markdown file.
// - A guide shows what CI runs: each ```sh block of docs/guide/<name>.md appears, line for line, in
//   docs/guide/<name>.sh or a part it sources (npm run check:guides runs those), and each block whose
//   info string says `file=<name>` is that file of docs/guide/. ```console blocks are shown, not run.
// Prints one line per problem and exits 1 when there is any.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';

export const README_MAX_BYTES = 15_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const guideDir = path.join(root, 'docs', 'guide');

export interface Block {
  info: string;
  lines: string[];
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a Markdown text, and the text with them blanked (so links in code are not links). */
export function splitMarkdown(text: string): { blocks: Block[]; prose: string[] } {
  const blocks: Block[] = [];
  const prose: string[] = [];
  let open: Block | undefined;
  let fence = '';
  text.split('\n').forEach((line, i) => {
    const marker = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (!open && marker) {
      fence = marker[2]!;
      open = { info: marker[3]!.trim(), lines: [], line: i + 1 };
      prose.push('');
    } else if (open && marker && marker[2]!.startsWith(fence) && marker[3]!.trim() === '') {
      blocks.push(open);
      open = undefined;
      prose.push('');
    } else if (open) {
      open.lines.push(line);
      prose.push('');
    } else {
      prose.push(line);
    }
  });
  return { blocks, prose };
}

/** The anchors GitHub makes for a Markdown file's headings, and its explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of splitMarkdown(text).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      // The heading as rendered: a link's text, no inline markup (the slugger drops the punctuation).
      const rendered = heading[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
      anchors.add(slugger.slug(rendered));
    }
    for (const id of line.matchAll(/<[^>]+\s(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** Inline links and images ([text](target), ![alt](target); the text may span lines), code spans left out, with their lines. */
function linkTargets(prose: string[]): { line: number; target: string }[] {
  const text = prose.join('\n').replace(/`+[^`\n]*`+/g, (code) => code.replace(/[^\n]/g, ' '));
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
    line: text.slice(0, m.index + m[0].indexOf('](')).split('\n').length,
    target: m[1]!,
  }));
}

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

const rel = (file: string) => path.relative(root, file);

export function checkLinks(file: string): string[] {
  const problems: string[] = [];
  const { prose } = splitMarkdown(fs.readFileSync(file, 'utf8'));
  for (const { line, target } of linkTargets(prose)) {
    // Absolute URLs, and paths the running server serves (/docs, /openapi.yaml), are not files here.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
    const [pathPart = '', fragment] = target.split('#', 2);
    const resolved = pathPart ? path.resolve(path.dirname(file), decodeURIComponent(pathPart)) : file;
    const where = `${rel(file)}:${line}: ${target}`;
    if (!fs.existsSync(resolved)) {
      problems.push(`${where}: no such file ${rel(resolved)}`);
      continue;
    }
    if (fragment === undefined) continue;
    if (!resolved.endsWith('.md')) {
      problems.push(`${where}: a #fragment can only be checked in a Markdown file`);
    } else if (!anchorsOf(fs.readFileSync(resolved, 'utf8')).has(fragment)) {
      problems.push(`${where}: ${rel(resolved)} has no heading or id whose anchor is #${fragment}`);
    }
  }
  return problems;
}

/** The lines of a walkthrough and of every part it sources (`. docs/guide/<name>.sh`). */
function scriptLines(script: string, seen = new Set<string>()): string[][] {
  if (seen.has(script) || !fs.existsSync(script)) return [];
  seen.add(script);
  const lines = fs.readFileSync(script, 'utf8').split('\n');
  const sourced = lines
    .map((l) => /^\s*\. (docs\/guide\/[\w-]+\.sh)\s*$/.exec(l)?.[1])
    .filter((s): s is string => Boolean(s))
    .flatMap((s) => scriptLines(path.join(root, s), seen));
  return [lines, ...sourced];
}

const contains = (haystack: string[], needle: string[]) =>
  haystack.some((_, start) => needle.every((line, k) => haystack[start + k] === line));

export function checkGuideBlocks(guide: string): string[] {
  const problems: string[] = [];
  const script = guide.replace(/\.md$/, '.sh');
  for (const block of splitMarkdown(fs.readFileSync(guide, 'utf8')).blocks) {
    const where = `${rel(guide)}:${block.line}`;
    const file = /(?:^|\s)file=(\S+)/.exec(block.info)?.[1];
    if (file) {
      const target = path.join(guideDir, file);
      const same = fs.existsSync(target) && fs.readFileSync(target, 'utf8') === `${block.lines.join('\n')}\n`;
      if (!same) problems.push(`${where}: the block marked file=${file} differs from docs/guide/${file}`);
    } else if (block.info.split(/\s/)[0] === 'sh') {
      const scripts = scriptLines(script);
      if (scripts.length === 0) problems.push(`${where}: a sh block, but there is no walkthrough ${rel(script)} to run it`);
      else if (!scripts.some((lines) => contains(lines, block.lines)))
        problems.push(`${where}: this sh block is not, line for line, in ${rel(script)} or a part it sources`);
    }
  }
  return problems;
}

function main(): void {
  const problems: string[] = [];
  const readme = path.join(root, 'README.md');
  const size = fs.statSync(readme).size;
  if (size > README_MAX_BYTES) problems.push(`README.md: ${size} bytes, over ${README_MAX_BYTES}: move the detail into docs/guide/`);
  const files = [readme, ...markdownFiles(path.join(root, 'docs'))];
  for (const file of files) problems.push(...checkLinks(file));
  for (const guide of markdownFiles(guideDir)) problems.push(...checkGuideBlocks(guide));
  for (const problem of problems) console.log(problem);
  console.log(`docs: README.md ${size} bytes; ${files.length} Markdown files checked, ${problems.length} problems`);
  if (problems.length) process.exitCode = 1;
}

if (import.meta.main) main();
