// PGlite is one process's database: two processes opening the same DATA_DIR would corrupt it.
// Whoever opens it (the server, the CLI) first takes `<DATA_DIR>/gigmarket.lock`, an exclusively
// created file holding its pid. A lock whose pid is no longer alive is stale and is taken over.
import fs from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'gigmarket.lock';

export class DataDirLockedError extends Error {
  readonly pid: number;
  readonly dataDir: string;
  constructor(dataDir: string, pid: number) {
    super(`the database in ${dataDir} is in use by another gigmarket process (pid ${pid}); PGlite allows one process at a time`);
    this.name = 'DataDirLockedError';
    this.dataDir = dataDir;
    this.pid = pid;
  }
}

export interface DataLock {
  file: string;
  release(): void;
}

/** Locks this process holds, so that a pid reused after a crash (our own pid in a stale file) is told apart. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** An empty lock file may be one another process created a moment ago and is still writing. */
function justCreated(file: string): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs < 5_000;
  } catch {
    return false;
  }
}

export function acquireDataLock(dataDir: string): DataLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = readPid(file);
      if (pid === undefined && justCreated(file)) throw new Error(`another process is taking the lock ${file}; try again`);
      const live = pid !== undefined && (pid === process.pid ? held.has(file) : isAlive(pid));
      if (live) throw new DataDirLockedError(dataDir, pid);
      // Stale (its process is gone) or left empty by a crash: take it over.
      fs.rmSync(file, { force: true });
      continue;
    }
    held.add(file);
    const release = () => {
      process.off('exit', release);
      if (!held.delete(file)) return;
      if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
    };
    // A process that exits without closing still leaves no lock behind.
    process.on('exit', release);
    return { file, release };
  }
  throw new Error(`could not take the lock ${file}`);
}
