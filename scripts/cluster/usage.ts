// What the cluster check's load cost, for the capacity model (docs/capacity.md): the CPU time of
// each kind of process (the instances, the Postgres backends of the check's own database,
// HAProxy, PgBouncer, the load itself) from /proc, and the database's transactions and rows
// written per table from its statistics, between the start of the load and its end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type postgres from 'postgres';

const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of a process, in ms; undefined once it is gone. */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1000;
  } catch {
    return undefined;
  }
}

interface Writes {
  commits: number;
  tables: Map<string, number>;
}

async function writes(sql: postgres.Sql): Promise<Writes> {
  const [db] = await sql<
    { commits: number }[]
  >`select xact_commit::float8 as commits from pg_stat_database where datname = current_database()`;
  const rows = await sql<{ name: string; written: number }[]>`
    select case when schemaname = 'pgboss' then 'pgboss.* (the job queue)' else relname end as name,
           sum(n_tup_ins + n_tup_upd + n_tup_del)::float8 as written
      from pg_stat_all_tables where schemaname in ('public', 'pgboss') group by 1`;
  return { commits: db!.commits, tables: new Map(rows.map((r) => [r.name, r.written])) };
}

/** Samples CPU every second while the load runs (a backend or an instance that ends keeps what it had used). */
export class Usage {
  readonly #first = new Map<string, number>();
  readonly #last = new Map<string, number>();
  readonly #kind = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #before: Writes | undefined;
  #after: Writes | undefined;
  /** The most connections Postgres had open to this database at one sample. */
  #connections = 0;

  readonly sql: postgres.Sql;
  /** The processes to watch, by kind (`instances`, `HAProxy`, …); the Postgres backends are found on each sample. */
  readonly processes: () => Record<string, number[]>;

  constructor(sql: postgres.Sql, processes: () => Record<string, number[]>) {
    this.sql = sql;
    this.processes = processes;
  }

  async #sample(initial: boolean): Promise<void> {
    const backends = await this.sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
    this.#connections = Math.max(this.#connections, backends.length);
    const kinds: Record<string, number[]> = { ...this.processes(), 'Postgres backends': backends.map((b) => b.pid) };
    for (const [kind, pids] of Object.entries(kinds)) {
      for (const pid of pids) {
        const key = `${kind}:${pid}`;
        const ms = cpuMs(pid);
        if (ms === undefined) continue;
        this.#kind.set(key, kind);
        // A process first seen after the start began during the load: all its time counts.
        if (!this.#first.has(key)) this.#first.set(key, initial ? ms : 0);
        this.#last.set(key, ms);
      }
    }
  }

  async start(): Promise<void> {
    this.#before = await writes(this.sql);
    await this.#sample(true);
    this.#timer = setInterval(() => void this.#sample(false).catch(() => {}), 1000);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sample(false);
    // The statistics reach the view a moment after each transaction.
    await new Promise((r) => setTimeout(r, 1000));
    this.#after = await writes(this.sql);
  }

  /** CPU seconds by kind of process, and the database's writes, per lifecycle flow and per request. */
  report(flows: number, requests: number): string[] {
    const byKind = new Map<string, number>();
    for (const [key, last] of this.#last)
      byKind.set(this.#kind.get(key)!, (byKind.get(this.#kind.get(key)!) ?? 0) + last - this.#first.get(key)!);
    const cpu = [...byKind].map(
      ([kind, ms]) => `${kind} ${(ms / 1000).toFixed(1)} s (${(ms / Math.max(1, requests)).toFixed(1)} ms a request)`,
    );
    const before = this.#before!;
    const after = this.#after!;
    const tables = [...after.tables]
      .map(([name, n]) => [name, n - (before.tables.get(name) ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]);
    const rows = tables.reduce((n, [, w]) => n + w, 0);
    const perFlow = (n: number) => (n / Math.max(1, flows)).toFixed(0);
    return [
      `CPU during the load: ${cpu.join(', ')}`,
      `Postgres connections to this database: at most ${this.#connections} at once`,
      `the database: ${after.commits - before.commits} transactions committed (${perFlow(after.commits - before.commits)} a flow), ` +
        `${rows} rows written (${perFlow(rows)} a flow): ${tables
          .slice(0, 6)
          .map(([name, n]) => `${name} ${n} (${perFlow(n)})`)
          .join(', ')}`,
    ];
  }
}
