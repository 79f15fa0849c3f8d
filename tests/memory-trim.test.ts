// The memory trim (src/memory-trim.ts): after a burst, once idle, one last-resort GC gives the heap
// V8 keeps back to the system. The rules with a recorded gc and given readings; then a real node
// process, whose resident set the trim really brings down.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startMemoryTrim } from '../src/memory-trim.ts';

const MB = 1024 * 1024;

/** A trim over scripted readings: each check() takes the next resident set and utilization. */
function scripted(readings: { rssMb: number; busy?: boolean; utilization?: number }[], afterTrimMb = 100) {
  const calls: NodeJS.GCOptions[] = [];
  const trims: { beforeBytes: number; afterBytes: number; ms: number }[] = [];
  let i = 0;
  let trimmedTo: number | undefined;
  const trim = startMemoryTrim({
    gc: ((options: NodeJS.GCOptions) => {
      calls.push(options);
      trimmedTo = afterTrimMb;
    }) as NodeJS.GCFunction,
    intervalMs: 60_000, // driven by check() below, never by the timer
    quietMs: 120_000, // a spell of two looks, idle on average
    growthBytes: 32 * MB,
    // The first reading is the baseline, taken at the start.
    rss: () => {
      if (trimmedTo !== undefined) {
        const r = trimmedTo;
        trimmedTo = undefined;
        return r * MB;
      }
      return readings[Math.min(i, readings.length - 1)]!.rssMb * MB;
    },
    utilization: () => readings[i]?.utilization ?? (readings[i]?.busy ? 0.9 : 0.01),
    onTrim: (t) => trims.push(t),
  });
  const check = () => {
    i++;
    return trim.check();
  };
  return { trim, check, calls, trims };
}

describe('memory trim', () => {
  it('is off without --expose-gc, and says so', () => {
    const trim = startMemoryTrim({ gc: undefined });
    expect(trim.active).toBe(false);
    expect(trim.check()).toBe(false);
    trim.stop();
  });

  it('trims after a quiet spell once the resident set grew by the threshold, with one last-resort major GC', () => {
    const { trim, check, calls, trims } = scripted([
      { rssMb: 100 },
      { rssMb: 180, busy: true },
      { rssMb: 180 },
      { rssMb: 180 },
      { rssMb: 100 },
    ]);
    expect(check()).toBe(false); // busy: never during load
    expect(check()).toBe(false); // idle, 80 MB over the baseline, but idle for one look only
    expect(check()).toBe(true); // the spell of two looks idle
    expect(calls).toEqual([{ type: 'major', execution: 'sync', flavor: 'last-resort' }]);
    expect(trims).toEqual([{ beforeBytes: 180 * MB, afterBytes: 100 * MB, ms: expect.any(Number) }]);
    expect(check()).toBe(false); // the new baseline is what the trim left
    expect(calls).toHaveLength(1);
    trim.stop();
  });

  it('waits until the whole quiet spell was idle, after any busy look', () => {
    const { trim, check, calls } = scripted([
      { rssMb: 100 },
      { rssMb: 180 },
      { rssMb: 180, busy: true },
      { rssMb: 180 },
      { rssMb: 180, busy: true },
      { rssMb: 180 },
      { rssMb: 180 },
    ]);
    expect([check(), check(), check(), check(), check()]).toEqual([false, false, false, false, false]); // no spell of two looks idle on average
    expect(check()).toBe(true);
    expect(calls).toHaveLength(1);
    trim.stop();
  });

  it('counts the quiet spell as idle on average: one look a little over 5% does not stop it', () => {
    const { trim, check, calls } = scripted([{ rssMb: 100 }, { rssMb: 180, utilization: 0.08 }, { rssMb: 180, utilization: 0.015 }]);
    expect(check()).toBe(false); // 8% busy, the spell not yet long enough
    expect(check()).toBe(true); // 4.75% over the spell
    expect(calls).toHaveLength(1);
    trim.stop();
  });

  it('leaves growth under the threshold alone, and counts growth from the lowest point seen', () => {
    const { trim, check, calls } = scripted([
      { rssMb: 150 },
      { rssMb: 181 },
      { rssMb: 120 },
      { rssMb: 151 },
      { rssMb: 153 },
      { rssMb: 153 },
    ]);
    expect(check()).toBe(false); // 31 MB over 150
    expect(check()).toBe(false); // shrank on its own to 120: the new mark
    expect(check()).toBe(false); // 31 MB over 120
    expect(check()).toBe(true); // 33 MB over 120, the quiet spell long since reached
    expect(calls).toHaveLength(1);
    trim.stop();
  });

  it('gives a real burst back to the system in a node process run with --expose-gc, and does nothing without it', async () => {
    const script = path.join(import.meta.dirname, 'fixtures', 'memory-trim-burst.ts');
    const run = async (flags: string[]) => JSON.parse((await promisify(execFile)(process.execPath, [...flags, script])).stdout.trim());
    const trimmed = await run(['--expose-gc']);
    expect(trimmed).toMatchObject({ active: true, trimmed: true });
    // The burst held ~250 MB more than the process needs; the trim gives most of it back.
    expect(trimmed.beforeBytes - trimmed.afterBytes).toBeGreaterThan(100 * MB);
    expect(await run([])).toEqual({ active: false });
  });
});
