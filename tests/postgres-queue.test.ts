// postgres.js's queue (its pool's lists of connections and of waiting queries), as
// patches/postgres+3.4.9.patch leaves it: `pop` for the pool's most recently idle connection, and
// taken slots dropped once they are half the array, with `remove` searching from the first live
// one. Unpatched, a queue that never emptied grew by one slot per item that passed through it,
// and every `remove` scanned them all (50 callers on 10 connections: 100,000 slots after 5 s). Both
// builds of the package (ES module and CommonJS) carry the patch; each must still be a queue.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  pop(): T | undefined;
  remove(x: T): T | null;
}
type MakeQueue = <T>(initial?: T[]) => Queue<T>;

const require = createRequire(import.meta.url);
// The package's exports name only its entry points: reach the file beside the resolved one.
const esmEntry = require.resolve('postgres').replace(/cjs[/\\]src[/\\]index\.js$/, 'src/index.js');
const builds: [string, () => Promise<MakeQueue>][] = [
  ['ES module', async () => (await import(pathToFileURL(esmEntry.replace(/index\.js$/, 'queue.js')).href)).default],
  ['CommonJS', async () => require(require.resolve('postgres').replace(/index\.js$/, 'queue.js'))],
];

type Op = { kind: 'push' } | { kind: 'shift' } | { kind: 'pop' } | { kind: 'remove'; pick: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'push' as const }) },
  { weight: 5, arbitrary: fc.constant({ kind: 'shift' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pop' as const }) },
  { weight: 1, arbitrary: fc.nat(50).map((pick) => ({ kind: 'remove' as const, pick })) },
);

describe.each(builds)("postgres.js's queue (%s build)", (_name, load) => {
  it('behaves as a list with both ends, whatever the order of operations', async () => {
    const Queue = await load();
    fc.assert(
      // Starting with up to 200 items, so that it empties now and then, or not for long stretches.
      fc.property(fc.nat(200), fc.array(op, { minLength: 1, maxLength: 3000 }), (initial, ops) => {
        const model = Array.from({ length: initial }, (_, i) => i);
        const queue = Queue<number>(model);
        let next = initial;
        for (const o of ops) {
          if (o.kind === 'push') {
            queue.push(next);
            model.push(next++);
          } else if (o.kind === 'shift') {
            // The pool checks the length first: shift and pop are never called on an empty queue.
            if (model.length) expect(queue.shift()).toBe(model.shift());
          } else if (o.kind === 'pop') {
            if (model.length) expect(queue.pop()).toBe(model.pop());
          } else {
            // The first item, another one present, or one that left already.
            const present = [model[0], model[o.pick % Math.max(1, model.length)]][o.pick % 3];
            const item = present ?? next - 1 - o.pick;
            const at = model.indexOf(item);
            expect(queue.remove(item)).toBe(at === -1 ? null : item);
            if (at !== -1) model.splice(at, 1);
          }
          expect(queue.length).toBe(model.length);
        }
        while (model.length) expect(queue.shift()).toBe(model.shift());
        expect(queue.length).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a queue that never empties working after many items passed through it', async () => {
    const Queue = await load();
    const queue = Queue<string>(['a', 'b', 'c']);
    // 100,000 = 3 x 33,333 + 1 turns: b, c, a.
    for (let i = 0; i < 100_000; i++) queue.push(queue.shift()!);
    expect(queue.length).toBe(3);
    expect(queue.remove('c')).toBe('c');
    expect(queue.remove('c')).toBeNull();
    queue.push('d');
    expect([queue.shift(), queue.pop(), queue.shift(), queue.length]).toEqual(['b', 'd', 'a', 0]);
  });
});
