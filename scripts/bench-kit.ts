// What the benchmarks share: a progress bar, quantiles, a free port, and stopping the server they ran.
import net from 'node:net';
import type { ChildProcess } from 'node:child_process';

/** A progress bar on stderr; `extra` adds a note after the counts. */
export function progress(label: string, total: number) {
  const started = Date.now();
  let shown = -1;
  return (done: number, extra = '') => {
    const percent = Math.floor((Math.min(done, total) / total) * 100);
    if (percent === shown && !extra) return;
    shown = percent;
    const width = 30;
    const filled = Math.round((Math.min(done, total) / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    const counts = `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counts} ${secs}s ${extra}   `);
    if (done >= total) process.stderr.write('\n');
  };
}

/** The p-quantile of the values (NaN when there are none). */
export const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : Number.NaN;
};

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** SIGTERM, then SIGKILL after 20 s; resolves once the process has exited. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
