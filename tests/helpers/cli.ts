// The operator CLI as `npm run -s cli --` runs it (its node flags, scripts/start-command.ts):
// dist/cli.js (built by the tests' global setup, tests/setup/builds.ts), in a process of its own,
// with exactly the database the caller names.
import { execFile } from 'node:child_process';
import { CLI_BUNDLE } from '../../scripts/server-bundle.ts';
import { CLI_NODE_ARGS } from '../../scripts/start-command.ts';
import { PROJECT_ROOT } from '../../src/project-root.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where the CLI finds its data: PGlite under DATA_DIR, or the Postgres at DATABASE_URL. */
export type CliDatabase = { DATA_DIR?: string; DATABASE_URL?: string };

/** Runs the CLI with `args`; `env` adds to this process's environment (DATABASE_URL only when given). */
export function runCli(args: string[], database: CliDatabase, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const full: NodeJS.ProcessEnv = { ...process.env, ...database, LOG_LEVEL: 'silent', ...env };
  if (!database.DATABASE_URL) delete full.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CLI_NODE_ARGS, CLI_BUNDLE, ...args],
      { cwd: PROJECT_ROOT, env: full, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}
