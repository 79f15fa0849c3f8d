// When anything under a path last changed: how the dashboard's build (src/dashboard/build.ts) and
// the server's bundle (scripts/server-bundle.ts) tell that their sources are newer than they are.
import fs from 'node:fs';
import path from 'node:path';

/** The newest mtime (ms) of the path and everything under it; 0 when it does not exist. */
export function newestMtime(file: string): number {
  if (!fs.existsSync(file)) return 0;
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of fs.readdirSync(file)) latest = Math.max(latest, newestMtime(path.join(file, entry)));
  return latest;
}
