// The load the pipeline benches put on a server (bench:pipeline, bench:ab): autocannon against one
// URL, with the serving process's CPU time per request beside requests per second and latency,
// and the heap a process allocates per request (scripts/bench-alloc-probe.ts, loaded with --import).
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const ALLOC_REQUESTS = Number(process.env.BENCH_ALLOC_REQUESTS ?? 20_000);
/** Node flags that load the allocation probe into a server. */
export const ALLOC_PROBE = ['--import', path.join(path.dirname(fileURLToPath(import.meta.url)), 'bench-alloc-probe.ts')];

export interface Figures {
  rps: number;
  /** CPU time (user + system) the serving process spent per request, in microseconds; NaN off Linux. */
  cpuUs: number;
  /** The same for its main thread alone (the event loop; without V8's and libuv's helper threads). */
  mainCpuUs: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * CPU seconds a process has used so far (utime + stime from /proc/<pid>/stat, in clock ticks of
 * 1/100 s): the cost per request, which the machine's other load (autocannon, Postgres) does not move.
 */
export function cpuSeconds(pid: number | undefined, thread: 'process' | 'main' = 'process'): number {
  try {
    const stat = fs.readFileSync(thread === 'main' ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * `duration` seconds of CONNECTIONS connections on `url`, or exactly `requests` requests when
 * given; the CPU figures are `pid`'s.
 */
export async function load(
  url: string,
  headers: Record<string, string>,
  pid: number | undefined,
  duration: number,
  requests?: number,
): Promise<Figures> {
  const cpuBefore = cpuSeconds(pid);
  const mainBefore = cpuSeconds(pid, 'main');
  const result = await autocannon({ url, connections: CONNECTIONS, headers, ...(requests ? { amount: requests } : { duration }) });
  const cpu = cpuSeconds(pid) - cpuBefore;
  const main = cpuSeconds(pid, 'main') - mainBefore;
  return {
    rps: result.requests.average,
    cpuUs: (cpu * 1e6) / Math.max(result.requests.total, 1),
    mainCpuUs: (main * 1e6) / Math.max(result.requests.total, 1),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** Bytes the process allocated per request over ALLOC_REQUESTS requests (scripts/bench-alloc-probe.ts). */
export async function allocatedPerRequest(child: ChildProcess, url: string, headers: Record<string, string>, dir: string): Promise<number> {
  const file = path.join(dir, `${child.pid}.json`);
  child.kill('SIGUSR1');
  await autocannon({ url, connections: 10, amount: ALLOC_REQUESTS, headers });
  child.kill('SIGUSR2');
  for (let waited = 0; !fs.existsSync(file); waited += 50) {
    if (waited > 10_000) throw new Error(`no allocation figure from process ${child.pid}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { allocated } = JSON.parse(fs.readFileSync(file, 'utf8')) as { allocated: number };
  return allocated / ALLOC_REQUESTS;
}
