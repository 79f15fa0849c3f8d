// npm run check:cluster [-- --pgbouncer | --both] — several instances, one database, and losing one
// under load. On a fresh database of the server Postgres (DATABASE_URL names the server, default
// postgres://postgres@127.0.0.1:5432/postgres; the check makes a database of its own and drops it),
// migrated once by `npm run db:migrate`, three server processes (`node dist/server.js`) with one
// SESSION_SECRET and REDIS_URL, the sandbox payment provider, behind HAProxy (round robin, health
// checks); with --pgbouncer, through PgBouncer in transaction mode (DATABASE_POOLER=transaction and
// DATABASE_DIRECT_URL); --both runs both, one after the other. A mixed load for CLUSTER_LOAD_S
// (40) seconds (scripts/cluster/flows.ts), one instance SIGKILLed halfway, then the checks
// (scripts/cluster/checks.ts) once everything due has happened (CLUSTER_SETTLE_S, 240, at most).
// Prints the figures and ends with PASS or FAIL (exit status 1). Needs Debian's haproxy and
// pgbouncer (it says how to install them), and Redis (REDIS_URL, else 127.0.0.1:6379, else a
// redis-server of its own). A few minutes: not part of .ci/run.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { freePort, freshDatabase, startServer, stopServer } from './bench-kit.ts';
import { openDatabase } from '../db/client.ts';
import { createUserWithKey, revokeUserApiKey } from '../src/services/api-keys.ts';
import { userActor } from '../src/actor.ts';
import { healthPath, missingPrograms, redisForRun, startHaproxy, startPgbouncer, stopPart, type Part } from './cluster/parts.ts';
import { Traffic, perInstance, phase, type Phase } from './cluster/traffic.ts';
import { lifecycleFlow, mcpLoop, searchLoop, type Agent, type FlowRecord, type LoadContext } from './cluster/flows.ts';
import { startReceiver } from './cluster/receiver.ts';
import { Usage } from './cluster/usage.ts';
import * as checks from './cluster/checks.ts';
import { bounds, type Finding } from './cluster/limits.ts';

const LOAD_S = Number(process.env.CLUSTER_LOAD_S ?? 40);
const SETTLE_S = Number(process.env.CLUSTER_SETTLE_S ?? 240);
const FLOW_WORKERS = Number(process.env.CLUSTER_FLOW_WORKERS ?? 6);
/** Enough pairs for the flows the load can start; each pair walks one gig. */
const PAIRS = Number(process.env.CLUSTER_PAIRS ?? 400);
const SEARCHERS = 40;
/** Low enough for the probe to spend it in seconds, well above what one of the load's keys spends. */
const RATE_LIMIT = 300;
/** Left out of the figures before the kill: the first requests of each process are slower (lazy compilation, empty caches). */
const WARMUP_S = 5;
const INSTANCES = ['gm1', 'gm2', 'gm3'];
const KILLED = 'gm2';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : '-');
const line = (label: string, p: Phase) =>
  `  ${label.padEnd(22)} ${String(p.requests).padStart(6)} requests (${p.perSecond.toFixed(0)}/s), ${String(p.failures).padStart(3)} failed, p50 ${ms(p.p50)}, p95 ${ms(p.p95)}, p99 ${ms(p.p99)}`;

type Mode = 'direct' | 'pgbouncer';

async function runCluster(mode: Mode, adminUrl: string): Promise<boolean> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-cluster-'));
  const fresh = await freshDatabase('cluster');
  const directUrl = fresh.url!;
  const servers = new Map<string, ChildProcess>();
  let haproxy: Part | undefined;
  let pgbouncer: Part | undefined;
  let redis: Part | undefined;
  const receiver = await startReceiver();
  let ok = false;
  try {
    console.log(
      `\n== ${mode === 'direct' ? 'three instances, one Postgres' : 'three instances through PgBouncer (transaction mode)'}: ${fresh.label}`,
    );
    // Through the pooler: the settings each connection would have sent at start, on the database instead.
    let appUrl = directUrl;
    const poolerEnv: Record<string, string> = {};
    if (mode === 'pgbouncer') {
      const target = new URL(directUrl);
      const database = target.pathname.slice(1);
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`alter database ${database} set jit = off`);
      await admin.unsafe(`alter database ${database} set statement_timeout = '30s'`);
      await admin.unsafe(`alter database ${database} set idle_in_transaction_session_timeout = '60s'`);
      await admin.end();
      const pgbDir = path.join(dir, 'pgbouncer');
      fs.mkdirSync(pgbDir);
      const bouncer = await startPgbouncer(pgbDir, { host: target.hostname, port: target.port || '5432', name: database }, 12);
      pgbouncer = bouncer.part;
      const pooled = new URL(directUrl);
      pooled.port = String(bouncer.port);
      appUrl = pooled.toString();
      Object.assign(poolerEnv, { DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: directUrl });
      console.log(
        `PgBouncer ${bouncer.port}: pool_mode = transaction, default_pool_size = 12 (server connections) for every instance's pools`,
      );
    }
    const migrated = spawnSync(process.execPath, ['src/db-migrate.ts'], {
      env: { ...process.env, DATABASE_URL: appUrl, ...poolerEnv },
      encoding: 'utf8',
    });
    if (migrated.status !== 0) throw new Error(`npm run db:migrate failed:\n${migrated.stdout}${migrated.stderr}`);
    console.log(`npm run db:migrate: ${migrated.stdout.trim()}`);

    const made = performance.now();
    const database = await openDatabase({ databaseUrl: directUrl, max: 2 });
    const agents: Agent[] = [];
    for (let i = 0; i < PAIRS * 2 + SEARCHERS + 4; i++) agents.push(await createUserWithKey({ db: database.db }, `Cluster agent ${i}`));
    await database.close();
    console.log(
      `${agents.length} users with API keys, made before the start as the CLI makes them (${((performance.now() - made) / 1000).toFixed(1)} s)`,
    );

    const { url: redisUrl, part } = await redisForRun(dir);
    redis = part;
    const balancerPort = await freePort();
    const base = `http://127.0.0.1:${balancerPort}`;
    const env = {
      DATABASE_URL: appUrl,
      ...poolerEnv,
      SESSION_SECRET: randomBytes(32).toString('base64url'),
      REDIS_URL: redisUrl,
      PUBLIC_URL: base,
      STRIPE_SECRET_KEY: '',
      WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
      PAYOUT_DAY_SECONDS: '1',
      IDEMPOTENCY_LOCK_TIMEOUT: '10',
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      LOG_LEVEL: 'warn',
    };
    const ports = await Promise.all(INSTANCES.map(() => freePort()));
    const started = performance.now();
    await Promise.all(
      INSTANCES.map(async (name, i) => {
        const log = fs.openSync(path.join(dir, `${name}.log`), 'a');
        servers.set(name, await startServer(env, ports[i]!, { stdout: log }));
      }),
    );
    const check = await healthPath(`http://127.0.0.1:${ports[0]}`);
    console.log(`3 instances healthy in ${((performance.now() - started) / 1000).toFixed(1)} s (started at once); REDIS_URL ${redisUrl}`);
    const balancer = await startHaproxy(
      dir,
      INSTANCES.map((name, i) => ({ name, port: ports[i]! })),
      check,
      balancerPort,
    );
    haproxy = balancer.part;
    console.log(
      `HAProxy ${balancerPort}: round robin, health check GET ${check} every 500 ms${check === '/api/health' ? ' (no /api/health/ready in this build)' : ''}`,
    );
    await sleep(1500); // two passing checks each

    const sql = postgres(directUrl, { max: 2, onnotice: () => {} });
    const usage = new Usage(sql, () => ({
      instances: [...servers.values()].map((c) => c.pid!),
      HAProxy: [haproxy!.child.pid!],
      ...(pgbouncer && { PgBouncer: [pgbouncer.child.pid!] }),
      'the load (this process)': [process.pid],
    }));
    const traffic = new Traffic();
    const ctx: LoadContext = { base, traffic, receiverUrl: receiver.url, stepDeadlineMs: 60_000 };
    const pairs = agents.slice(0, PAIRS * 2);
    const searchers = agents.slice(PAIRS * 2, PAIRS * 2 + SEARCHERS);
    const [mcpA, mcpB, probe, revoked] = agents.slice(PAIRS * 2 + SEARCHERS);
    await usage.start();
    const loadStart = performance.now();
    const loadEnd = loadStart + LOAD_S * 1000;
    const running = () => performance.now() < loadEnd;
    const flows: FlowRecord[] = [];
    let next = 0;
    const worker = async () => {
      while (running() && next < PAIRS) {
        const n = next++;
        flows.push(await lifecycleFlow(ctx, pairs[2 * n]!, pairs[2 * n + 1]!, n));
      }
    };
    const mcp = [mcpLoop(ctx, mcpA!, running), mcpLoop(ctx, mcpB!, running)];
    const searches = [searchLoop(ctx, searchers.slice(0, 20), 250, running), searchLoop(ctx, searchers.slice(20), 250, running)];
    const workers = Array.from({ length: FLOW_WORKERS }, worker);
    await sleep((LOAD_S * 1000) / 2);
    const victim = servers.get(KILLED)!;
    const gone = new Promise((r) => victim.once('exit', r));
    victim.kill('SIGKILL');
    traffic.killed = KILLED;
    traffic.killedAt = performance.now();
    const killedAtClock = new Date();
    await gone;
    traffic.goneAt = performance.now();
    console.log(
      `SIGKILL ${KILLED} at ${((traffic.killedAt - loadStart) / 1000).toFixed(1)} s, gone ${(traffic.goneAt - traffic.killedAt).toFixed(0)} ms later`,
    );
    await Promise.all(workers);
    const [mcpRuns, searchRuns] = [await Promise.all(mcp), await Promise.all(searches)];
    const flowsEnd = performance.now();
    const loadAverage = os.loadavg()[0]!;
    await usage.stop();
    traffic.load = false;

    const findings: Finding[] = [];
    findings.push(await bounds.rateLimitShared(ctx, probe!, RATE_LIMIT, KILLED));
    findings.push(
      await bounds.revocationHeard(ctx, revoked!, async () => {
        // Revoked beside the servers, as the CLI does, through the same DATABASE_URL (the pooler, when there is one).
        const db = await openDatabase({ databaseUrl: appUrl, max: 1, ...(mode === 'pgbouncer' ? { directUrl } : {}) });
        await revokeUserApiKey({ db: db.db }, userActor(revoked!.userId), revoked!.apiKeyId);
        await db.close();
      }),
    );

    const settleStart = performance.now();
    const expectedOf = () => checks.expectedDeliveries(sql, flows);
    let waiting = '';
    let heldAtFirst: number | undefined;
    while (performance.now() - settleStart < SETTLE_S * 1000) {
      const [unpaid, undispatched, missing] = [
        await checks.unpaid(sql, flows),
        await checks.undispatched(sql),
        checks.missingDeliveries(await expectedOf(), receiver),
      ];
      const held = await checks.heldSince(sql, killedAtClock);
      heldAtFirst ??= held;
      waiting = `${unpaid} released milestones unpaid, ${undispatched} events undispatched, ${missing} webhook events not received, ${held} jobs active since before the kill`;
      if (unpaid + undispatched + missing + held === 0) break;
      await sleep(2000);
    }
    const settled = (performance.now() - settleStart) / 1000;

    findings.push(await checks.acknowledgedWrites(ctx, flows));
    findings.push(await checks.moneyOnce(sql, flows));
    findings.push(await checks.creditsOnce(sql, flows));
    findings.push(checks.webhooksOnce(await expectedOf(), receiver));
    findings.push(await checks.jobsNotStuck(sql));
    findings.push(bounds.mcpCarriedOn(mcpRuns));
    findings.push(bounds.failuresBounded(traffic));
    const done = flows.filter((f) => f.done).length;
    findings.push({
      check: 'every flow completed',
      ok: done === flows.length,
      detail: `${done} of ${flows.length}${flows.find((f) => f.error) ? `; first error: ${flows.find((f) => f.error)!.error}` : ''}`,
    });
    await sql.end();

    const killedAt = traffic.killedAt!;
    console.log(
      `\nload: ${FLOW_WORKERS} flows at a time, 2 search loops, 2 MCP clients, ${LOAD_S} s (flows running at the end finished by ${((flowsEnd - loadStart) / 1000).toFixed(0)} s); ` +
        `load average ${loadAverage.toFixed(1)} on ${os.availableParallelism()} cores at its end`,
    );
    console.log(line(`before (from ${WARMUP_S} s)`, phase(traffic, loadStart + WARMUP_S * 1000, killedAt)));
    console.log(line('after the kill', phase(traffic, killedAt, flowsEnd)));
    console.log(`  answered by instance: ${JSON.stringify(perInstance(traffic))}`);
    console.log(
      `  ${flows.length} lifecycle flows (${done} completed), ${searchRuns.reduce((n, r) => n + r.done, 0)} background searches, ` +
        `${mcpRuns.reduce((n, r) => n + r.calls, 0)} MCP tool calls, ${receiver.deliveries()} webhook deliveries received`,
    );
    const loadRequests = traffic.samples.filter((x) => x.load).length;
    for (const l of usage.report(flows.length, loadRequests)) console.log(`  ${l}`);
    console.log(
      `settled in ${settled.toFixed(0)} s${settled >= SETTLE_S ? ` (gave up waiting: ${waiting})` : ''}; ` +
        `${heldAtFirst} jobs were still active since before the kill when the load ended (the killed instance's wait for their expiry)`,
    );
    for (const f of findings) console.log(`  ${f.ok ? 'ok  ' : 'FAIL'} ${f.check}: ${f.detail}`);
    ok = findings.every((f) => f.ok);
    if (!ok) {
      // What the survivors said of themselves, and whether something else stopped them.
      for (const [i, name] of INSTANCES.entries()) {
        const child = servers.get(name)!;
        const ready = await fetch(`http://127.0.0.1:${ports[i]}/api/health/ready`).then(
          (r) => `${r.status} ${r.statusText}`,
          (e: Error) => e.message,
        );
        console.log(`  ${name}: exit ${child.exitCode ?? child.signalCode ?? 'none'}, readiness ${ready}`);
      }
    }
    return ok;
  } finally {
    await Promise.all([...servers.values()].map((child) => stopServer(child)));
    await stopPart(haproxy);
    await stopPart(pgbouncer);
    await stopPart(redis);
    await receiver.close();
    await fresh.drop();
    // A failed run keeps the instances' logs and the generated configurations.
    if (ok) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`the instances' logs and the configurations: ${dir}`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  const modes: Mode[] = args.includes('--both') ? ['direct', 'pgbouncer'] : args.includes('--pgbouncer') ? ['pgbouncer'] : ['direct'];
  const missing = missingPrograms();
  if (missing.length) {
    console.error(
      `check:cluster runs Debian's ${missing.join(' and ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed: sudo apt-get install -y haproxy pgbouncer`,
    );
    process.exit(2);
  }
  process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
  const adminUrl = process.env.DATABASE_URL;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  const reachable = await admin`select 1`.then(
    () => true,
    () => false,
  );
  await admin.end();
  if (!reachable) {
    console.error(`check:cluster needs a server Postgres: none answers at DATABASE_URL (${adminUrl})`);
    process.exit(2);
  }
  console.log(
    `check:cluster, ${new Date().toISOString()}, ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const results: [Mode, boolean][] = [];
  for (const mode of modes) results.push([mode, await runCluster(mode, adminUrl)]);
  const pass = results.every(([, ok]) => ok);
  console.log(`\n${pass ? 'PASS' : 'FAIL'} ${results.map(([m, ok]) => `${m}: ${ok ? 'pass' : 'fail'}`).join(', ')}`);
  process.exitCode = pass ? 0 : 1;
}

await main();
