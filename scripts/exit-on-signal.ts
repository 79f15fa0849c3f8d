// For the bare baselines of the benchmarks: no imports, so a baseline's start and memory stay bare.

/** On SIGTERM or SIGINT, close what the process opened, then exit. */
export function exitOnSignal(close: () => Promise<void>): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, async () => {
      await close();
      process.exit(0);
    });
}
