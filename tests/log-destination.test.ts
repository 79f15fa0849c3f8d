// The server log's destination (src/http/logging.ts): the lines of one turn of the event loop
// leave in one write at the end of that turn, in order; a single line on a quiet server leaves in
// its own turn, without waiting for more; flush() writes what is pending and waits for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import sonicBoom, { type SonicBoom } from 'sonic-boom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogDestination } from '../src/http/logging.ts';

const SonicBoomStream = sonicBoom as unknown as typeof SonicBoom;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let dir: string;
let file: string;
let out: SonicBoom;
/** Bytes of each write sonic-boom made, in order. */
let writes: number[];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-log-destination-'));
  file = path.join(dir, 'server.log');
  out = new SonicBoomStream({ dest: file, sync: false, minLength: 0 });
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
  it('writes the lines of one turn in one write, in order, and the next turn’s in another', async () => {
    const destination = new LogDestination(out);
    const log = pino({ base: undefined, timestamp: false }, destination);
    for (let i = 0; i < 50; i++) log.info({ i }, 'request completed');
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

  it('writes a lone line in the turn that logged it, without waiting for more lines', async () => {
    const destination = new LogDestination(out);
    destination.write('{"msg":"gigmarket listening"}\n');
    expect(writes).toEqual([]); // not before the turn ends
    await nextTurn();
    await expect.poll(() => writes).toHaveLength(1);
    expect(written()).toBe('{"msg":"gigmarket listening"}\n');
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
