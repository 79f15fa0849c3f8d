// `npm run check:arazzo`: runs every workflow of arazzo.yaml (the contract lifecycle, Arazzo 1.0.1)
// with `redocly respect` against a real server: `npm start`'s bundle (scripts/bench-kit.ts) on a
// fresh database (embedded PGlite; a new database on DATABASE_URL's Postgres when that is set) with
// the sandbox payment provider and a payout day of one second (PAYOUT_DAY_SECONDS), so the payouts
// follow their releases within seconds. Two users, the client and the worker, are made first with
// the operator CLI (`create-user`, as the guides' walkthroughs make theirs); their keys are the
// workflows' inputs, handed over in REDOCLY_CLI_RESPECT_INPUT rather than on a command line.
//
// Respect checks each step's success criteria, and each response of an operation against
// openapi.yaml (status, content type, schema). Exits with respect's code: non-zero when a step
// failed. Arguments go to respect: `npm run check:arazzo -- --verbose --har-output run.har`.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../tests/helpers/cli.ts';
import { freePort, freshDatabase, serverEntry, startServer, stopServer } from './bench-kit.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Redocly CLI's bin (the @redocly/cli dev dependency), run with this script's node. */
const REDOCLY = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
/** Longest the workflows may run (respect's own default is an hour); they take seconds. */
const EXECUTION_TIMEOUT_MS = 180_000;

/** A new user's first API key, made by the operator CLI in the database before the server opens it. */
async function newUserKey(name: string, env: Record<string, string>): Promise<string> {
  const made = await runCli(['create-user', name, '--json'], env);
  if (made.code !== 0) throw new Error(`create-user ${name} exited ${made.code}: ${made.stderr.trim()}`);
  return (JSON.parse(made.stdout) as { api_key: string }).api_key;
}

function respect(serverUrl: string, inputs: Record<string, string>, args: string[]): Promise<number> {
  const command = [REDOCLY, 'respect', 'arazzo.yaml', '--server', `gigmarket=${serverUrl}`];
  command.push('--execution-timeout', String(EXECUTION_TIMEOUT_MS), ...args);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        REDOCLY_CLI_RESPECT_INPUT: JSON.stringify(inputs),
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      },
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const started = performance.now();
  serverEntry(); // bundles the server and the CLI first when they are missing or stale
  const fresh = await freshDatabase('arazzo');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const client_key = await newUserKey('Client Co', fresh.env);
    const worker_key = await newUserKey('Worker Bee', fresh.env);
    const port = await freePort();
    // The sandbox provider: no Stripe settings from the caller's environment.
    const env = { ...fresh.env, PAYOUT_DAY_SECONDS: '1', STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' };
    server = await startServer(env, port, { stdout: 'ignore' });
    const url = `http://127.0.0.1:${port}`;
    console.log(`redocly respect arazzo.yaml against ${url} (server on ${fresh.label})`);
    const code = await respect(url, { client_key, worker_key }, process.argv.slice(2));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`arazzo: ${code === 0 ? 'every workflow passed' : `respect exited ${code}`}, ${seconds} s in all`);
    process.exitCode = code;
  } finally {
    if (server) await stopServer(server);
    await fresh.drop();
  }
}

if (import.meta.main) await main();
