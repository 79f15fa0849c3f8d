// The server log's destination (src/http/logging.ts): lines gathered over LOG_WRITE_INTERVAL_MS
// leave in one write, in order; a single line on a quiet server leaves within that interval
// without waiting for more; a large batch leaves at once; flush() writes what is pending and
// waits for it.
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import sonicBoom, { type SonicBoom } from 'sonic-boom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOG_WRITE_INTERVAL_MS, LogDestination } from '../../src/http/logging.ts';

const SonicBoomStream = sonicBoom as unknown as typeof SonicBoom;

let dir: string;
let file: string;
let out: SonicBoom;
/** Bytes of each write sonic-boom made, in order. */
let writes: number[];
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-log-destination-'));
  file = path.join(dir, 'server.log');
  out = new SonicBoomStream({ dest: file, sync: false, minLength: 0 });
  await once(out, 'ready'); // the file opened
  const ours: number[] = [];
  writes = ours;
  out.on('write', (bytes: number) => ours.push(bytes));
});
afterEach(() => {
  out.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const written = () => fs.readFileSync(file, 'utf8');

describe('the log destination', () => {
  it('writes the lines gathered over the interval in one write, in order, and later ones in another', async () => {
    // An interval no loaded machine outlasts: the lines are all gathered when flush() sends them.
    const destination = new LogDestination(out, { intervalMs: 60_000 });
    const log = pino({ base: undefined, timestamp: false }, destination);
    for (let i = 0; i < 50; i++) {
      log.info({ i }, 'request completed');
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve)); // other turns of the loop
    }
    await destination.flush();
    expect(writes).toHaveLength(1);
    expect(
      written()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).i),
    ).toEqual([...Array(50).keys()]);

    log.info({ i: 50 }, 'request completed');
    log.info({ i: 51 }, 'request completed');
    await destination.flush();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(Buffer.byteLength(written().split('\n').slice(50).join('\n')));
  });

  it('writes a lone line within the interval, without waiting for more lines', async () => {
    const destination = new LogDestination(out);
    const loggedAt = performance.now();
    destination.write('{"msg":"gigmarket listening"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([]); // gathering
    await expect.poll(() => writes, { interval: 2 }).toHaveLength(1);
    expect(performance.now() - loggedAt).toBeGreaterThanOrEqual(LOG_WRITE_INTERVAL_MS - 1);
    expect(written()).toBe('{"msg":"gigmarket listening"}\n');
  });

  it('hands the lines to the file at once when those waiting pass the batch size', async () => {
    // The interval longer than the wait below: a write then comes from the batch's size alone.
    const destination = new LogDestination(out, { batchChars: 100, intervalMs: 60_000 });
    destination.write(`${'a'.repeat(60)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 2 * LOG_WRITE_INTERVAL_MS));
    expect(writes).toEqual([]); // 61 characters: gathering
    destination.write(`${'b'.repeat(60)}\n`); // 122 characters waiting: out now, not after the interval
    await expect.poll(() => writes).toHaveLength(1);
    expect(written()).toBe(`${'a'.repeat(60)}\n${'b'.repeat(60)}\n`);
  });

  it('flush() writes what the turn has not yet written, and resolves once it is on disk', async () => {
    const destination = new LogDestination(out);
    destination.write('{"msg":"shutting down"}\n');
    await destination.flush();
    expect(written()).toBe('{"msg":"shutting down"}\n');
    await destination.flush(); // nothing pending: resolves at once
    expect(writes).toHaveLength(1);
  });
});
