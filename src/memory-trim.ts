// Gives memory back to the system after a burst of load.
//
// A burst leaves V8 holding heap pages it no longer uses: pages pooled for reuse, and old-generation
// pages its mark-compacts leave sparse. V8's memory reducer would release them, but it only starts
// once the allocation rate is low, and an idle server still polls its job queue and the database:
// `node --trace-memory-reducer` prints "high alloc" every 8 s for as long as the server runs. So after
// a load the process kept some 70 MB it did not need, for good (bench:start on PGlite: 250-290 MB
// against 185 before the load). This does what the memory reducer would have done: once the event
// loop has been under 5% busy, on average, over a quiet spell (quietMs, 10 s, looked at every
// second) and the resident set has grown by growthBytes since the last trim, one last-resort full
// GC, which compacts the heap and releases the pooled pages.
//
// A quiet spell, not the first idle second (as until 2026-11-27): the last-resort GC also throws
// away the optimized code of the request path (`--trace-deopt`: "embedded weak objects
// cleared"), so the next burst compiles it all again. Measured 2026-11-27 on the server Postgres,
// bursts of 4 s with 4 s gaps (a trim in each gap): 160-236 µs of CPU per gig read, 29-44 of them
// on V8's compiler threads (~230 functions recompiled per burst); without the trims, 117-124 µs,
// 9-10 on those threads.
//
// A last-resort GC is what reduces memory: a regular major GC took 21-31 ms and left the resident
// set where it was (283 -> 283 MB); the last-resort one took 93-96 ms and went 278 -> 180 MB. That
// pause falls once per burst, only on an event loop idle for that long. It needs node's
// --expose-gc (`npm start` passes it); without it the trim is off and the server says so at start.
import { performance } from 'node:perf_hooks';

export interface MemoryTrimOptions {
  /** globalThis.gc, present under --expose-gc. */
  gc: NodeJS.GCFunction | undefined;
  /** How often to look; the idle interval is this long too. */
  intervalMs?: number;
  /** How long the event loop must have been idle (on average over that time) before a trim: 10 s. */
  quietMs?: number;
  /** Growth of the resident set since the last trim (or the start) that makes a trim worth a pause. */
  growthBytes?: number;
  /** The resident set in bytes, and the event loop utilization since the previous call: injectable for tests. */
  rss?: () => number;
  utilization?: () => number;
  onTrim?: (trim: { beforeBytes: number; afterBytes: number; ms: number }) => void;
}

export interface MemoryTrim {
  /** Whether it runs (false without --expose-gc). */
  readonly active: boolean;
  /** One look, as the timer takes it: trims when due; true when it did. */
  check(): boolean;
  stop(): void;
}

/** Event loop utilization since the previous call. */
function utilizationSince(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, last);
    last = now;
    return delta.utilization;
  };
}

/** Event loop utilization (0-1), over the quiet spell, below which the server counts as idle. */
const IDLE_UTILIZATION = 0.05;

export function startMemoryTrim(options: MemoryTrimOptions): MemoryTrim {
  const { gc } = options;
  if (!gc) return { active: false, check: () => false, stop: () => {} };
  const growth = options.growthBytes ?? 32 * 1024 * 1024;
  const rss = options.rss ?? (() => process.memoryUsage.rss());
  const utilization = options.utilization ?? utilizationSince();

  const intervalMs = options.intervalMs ?? 1000;
  const quietLooks = Math.max(1, Math.ceil((options.quietMs ?? 10_000) / intervalMs));
  // The utilization of the last quietLooks intervals. Averaged, not each under the bar: on PGlite
  // the job queue's polls run on the event loop, and one second in ten can pass 5% on its own.
  const recent: number[] = [];

  let baseline = rss();
  const check = () => {
    // Read every time, so that the utilization always covers exactly the last interval.
    recent.push(utilization());
    if (recent.length > quietLooks) recent.shift();
    const quiet = recent.length === quietLooks && recent.reduce((sum, u) => sum + u, 0) / quietLooks < IDLE_UTILIZATION;
    const before = rss();
    if (!quiet || before < baseline + growth) {
      // A resident set that shrank on its own lowers the mark: growth is counted from the lowest point.
      baseline = Math.min(baseline, before);
      return false;
    }
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    baseline = rss();
    options.onTrim?.({ beforeBytes: before, afterBytes: baseline, ms: performance.now() - started });
    return true;
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return { active: true, check, stop: () => clearInterval(timer) };
}
