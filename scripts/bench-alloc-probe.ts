// Loaded with `node --import` into both servers of bench:pipeline: between SIGUSR1 and SIGUSR2 it
// sums what V8's collections freed (with the heap's growth, what the process allocated on its
// JavaScript heap) and writes it to `<BENCH_ALLOC_DIR>/<pid>.json`. Bytes allocated per request
// repeat from run to run on this VM where CPU time per request does not, and the issue points at
// allocation (GC) as the lever.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';

let profiler: v8.GCProfiler | undefined;
let usedAtStart = 0;
process.on('SIGUSR1', () => {
  profiler = new v8.GCProfiler();
  profiler.start();
  usedAtStart = v8.getHeapStatistics().used_heap_size;
});
process.on('SIGUSR2', () => {
  const result = profiler?.stop();
  profiler = undefined;
  if (!result) return;
  let freed = 0;
  for (const gc of result.statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  const allocated = freed + v8.getHeapStatistics().used_heap_size - usedAtStart;
  const file = path.join(process.env.BENCH_ALLOC_DIR ?? '.', `${process.pid}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ allocated, collections: result.statistics.length }));
  fs.renameSync(`${file}.tmp`, file);
});
