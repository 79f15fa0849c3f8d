// `npm run check:comments`: no comment in the code (src/, db/, handlers/, jobs/, scripts/, web/src/, tests/)
// carries a date (YYYY-MM-DD). A comment says why; a dated figure goes stale there, and belongs in
// docs/performance.md. Strings are code, not comments: an API version such as GitHub's stays.
// src/generated/ is left out: it is made from openapi.yaml, whose examples carry dates.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { appFiles } from './check-stock.ts';

const DIRS = ['src', 'db', 'handlers', 'jobs', 'scripts', 'web/src', 'tests'];
const EXTENSIONS = ['.ts', '.tsx', '.cjs', '.js', '.css'];
const GENERATED = 'src/generated/';
const DATE = /(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)/g;
/** Dates a comment may hold, being no figure's date: each with the file it is in. */
const ALLOWED: { file: string; date: string; why: string }[] = [
  { file: 'src/presenters/timestamps.ts', date: '0000-01-01', why: 'the first day a four-digit year writes' },
  { file: 'src/presenters/timestamps.ts', date: '0000-03-01', why: 'the day the calendar arithmetic counts from' },
];

/** Each comment of a TypeScript or JavaScript file, with the offset it starts at. */
function scriptComments(file: string, text: string): { start: number; text: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = new Map<number, string>();
  const keep = (pos: number, end: number) => {
    found.set(pos, text.slice(pos, end));
  };
  // Every comment sits in the trivia before some token, the end of the file included: on the
  // previous token's line (trailing it) or on lines of its own (leading the next).
  const visit = (node: ts.Node) => {
    const children = node.getChildren(source);
    if (children.length === 0) {
      ts.forEachTrailingCommentRange(text, node.pos, keep);
      ts.forEachLeadingCommentRange(text, node.pos, keep);
    }
    for (const child of children) visit(child);
  };
  visit(source);
  return [...found].map(([start, comment]) => ({ start, text: comment }));
}

function cssComments(text: string): { start: number; text: string }[] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => ({ start: m.index, text: m[0] }));
}

/** Each comment under the code's folders that holds a date, as `file:line: the line`. */
export function datedComments(root: string): string[] {
  const problems: string[] = [];
  for (const file of appFiles(root, DIRS, EXTENSIONS)) {
    if (file.startsWith(GENERATED)) continue;
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const comments = file.endsWith('.css') ? cssComments(text) : scriptComments(file, text);
    for (const comment of comments) {
      const match = [...comment.text.matchAll(DATE)].find((m) => !ALLOWED.some((a) => a.file === file && a.date === m[0]));
      if (!match) continue;
      const at = comment.start + match.index;
      const line = text.slice(0, at).split('\n').length;
      problems.push(`${file}:${line}: ${text.split('\n')[line - 1]!.trim()}`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = datedComments(path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (problems.length) {
    console.error(
      `comments: a date in a comment (say why without it; figures and their dates go in docs/performance.md):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    process.exitCode = 1;
  } else {
    console.log(`comments: no dates in the comments of ${DIRS.join(', ')}`);
  }
}
