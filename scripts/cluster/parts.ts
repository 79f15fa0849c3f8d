// The parts around the servers that `npm run check:cluster` runs, each a Debian package's own
// program started here with a generated configuration in a temporary directory: HAProxy in front
// (round robin, health checks), PgBouncer in transaction mode between the servers and Postgres
// (--pgbouncer), and Redis for the shared rate-limit counters when none answers already.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../bench-kit.ts';
import { redisAnswers } from './redis-probe.ts';

/** The programs this check needs and installs nothing for: their absence ends it, saying how to get them. */
export function missingPrograms(): string[] {
  return ['haproxy', 'pgbouncer'].filter((program) => spawnSync(program, ['-v'], { stdio: 'ignore' }).error !== undefined);
}

export interface Part {
  name: string;
  child: ChildProcess;
  /** What it wrote to stderr and stdout, for the report when it fails. */
  output(): string;
}

/**
 * A program whose output goes to `{dir}/{name}.log`: a file, never a pipe, which HAProxy would
 * drop log lines into while this process is busy reading it.
 */
function started(dir: string, name: string, command: string, args: string[]): Part {
  const file = path.join(dir, `${name}.log`);
  const out = fs.openSync(file, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  return { name, child, output: () => fs.readFileSync(file, 'utf8') };
}

/** Resolves once something accepts TCP connections on the port; throws when `part` exits first or 10 s pass. */
async function untilListening(part: Part, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (part.child.exitCode !== null) throw new Error(`${part.name} exited (code ${part.child.exitCode}):\n${part.output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${part.name} did not listen on ${port} within 10 s:\n${part.output()}`);
}

export async function stopPart(part: Part | undefined): Promise<void> {
  if (!part || part.child.exitCode !== null || part.child.signalCode !== null) return;
  const exited = new Promise((r) => part.child.once('exit', r));
  part.child.kill('SIGTERM');
  const timer = setTimeout(() => part.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The health check HAProxy polls: readiness where the server has it, else the plain health answer. */
export async function healthPath(instanceUrl: string): Promise<string> {
  const ready = await fetch(`${instanceUrl}/api/health/ready`).catch(() => undefined);
  await ready?.body?.cancel();
  return ready?.status === 200 ? '/api/health/ready' : '/api/health';
}

/**
 * HAProxy on a free port: round robin over the servers, a health check every 500 ms (down after two
 * failures), a request whose connection to a server fails sent to another (`retries`, `redispatch`;
 * only a failed connection, so a request that reached a server is never sent twice), and each
 * answer, its own errors included, naming the server in `x-gm-instance`.
 */
export async function startHaproxy(dir: string, servers: { name: string; port: number }[], check: string, port: number) {
  const config = [
    'global',
    '  maxconn 4096',
    '  log stdout format raw local0',
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    '  timeout connect 2s',
    // A readiness answer slower than this marks the server down: well above what a busy machine takes.
    '  timeout check 3s',
    '  timeout client 120s',
    // Longer than any answer of the load; an MCP client's event stream stays open past it and reconnects.
    '  timeout server 120s',
    '  retries 3',
    '  option redispatch 1',
    'frontend gigmarket',
    `  bind 127.0.0.1:${port}`,
    '  default_backend servers',
    'backend servers',
    '  balance roundrobin',
    // A fresh connection per request: one kept idle to a server that has just died would take the
    // next request and close the client's connection, where a new one is refused and redispatched.
    '  http-reuse never',
    '  option httpchk',
    `  http-check send meth GET uri ${check}`,
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 2',
    '  http-after-response set-header x-gm-instance %s',
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`),
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const part = started(dir, 'haproxy', 'haproxy', ['-f', file, '-db']);
  await untilListening(part, port);
  return { part, port, url: `http://127.0.0.1:${port}`, config };
}

/**
 * PgBouncer on a free port, in transaction mode, in front of one database, with a pool of
 * `poolSize` server connections for every client connection the servers open; `extra`, more
 * lines of its [pgbouncer] section. Root may not run it: it then drops to `nobody`, which must
 * read the configuration.
 */
export async function startPgbouncer(
  dir: string,
  database: { host: string; port: string; name: string },
  poolSize: number,
  extra: string[] = [],
) {
  const port = await freePort();
  const config = [
    '[databases]',
    `${database.name} = host=${database.host} port=${database.port} dbname=${database.name}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 1000',
    // The pooler's own bounds for what the servers cannot set per connection through it.
    'idle_transaction_timeout = 60',
    ...extra,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  const file = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(file, config);
  fs.chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const part = started(dir, 'pgbouncer', 'pgbouncer', [...asRoot, file]);
  await untilListening(part, port);
  return { part, port, config };
}

/** REDIS_URL when set; else the one on 127.0.0.1:6379 if it answers; else a private redis-server on a free port (stopped at the end). */
export async function redisForRun(dir: string): Promise<{ url: string; part?: Part }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL };
  if (await redisAnswers('redis://127.0.0.1:6379')) return { url: 'redis://127.0.0.1:6379' };
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error) {
    throw new Error(
      'no Redis answers on 127.0.0.1:6379 and redis-server is not installed: apt-get install -y redis-server, or set REDIS_URL',
    );
  }
  const port = await freePort();
  const part = started(dir, 'redis-server', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '']);
  await untilListening(part, port);
  return { url: `redis://127.0.0.1:${port}`, part };
}
