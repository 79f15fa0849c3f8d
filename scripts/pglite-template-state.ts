// Whether dist/ holds a current template of the embedded database: what `npm start` and `npm run
// cli` check on every run (scripts/build-server.ts --if-needed), so it loads nothing but fs.
import fs from 'node:fs';
import path from 'node:path';
import { pgliteTemplatePath } from '../db/pglite-template-file.ts';
import { newestMtime } from '../src/newest-mtime.ts';
import { PROJECT_ROOT } from '../src/project-root.ts';

/** What the template is made of: newer than the template, and it is stale. */
const SOURCES = ['db/migrations', 'package-lock.json'];

export function pgliteTemplateState(root = PROJECT_ROOT): 'missing' | 'stale' | 'current' {
  const file = pgliteTemplatePath(root);
  if (!fs.existsSync(file)) return 'missing';
  const built = fs.statSync(file).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > built) ? 'stale' : 'current';
}
