// The outbox relay: events are written in the transaction of the change they record, and this hands
// them to their subscribers (webhook deliveries, notifications) in a transaction of its own, which
// also marks them dispatched. A subscriber enqueues pg-boss jobs or writes rows with that
// transaction, so an event is dispatched exactly once, with everything it caused, or not at all.
// Every process runs a relay: woken by the notification each event transaction sends on commit, and
// every few seconds regardless (a notification can be missed); rows another relay holds are skipped.
import { AsyncResource } from 'node:async_hooks';
import type { Context } from '../context.ts';
import type { Tx } from '../../db/client.ts';
import { EVENTS_WRITTEN_CHANNEL, lockUndispatched, markDispatched, type EventRow } from '../../db/repositories/events.ts';
import { listen } from '../../db/listen.ts';

/** Hands a batch of events (oldest first) to one kind of consumer, inside the relay's transaction. */
export type EventSubscriber = (tx: Tx, events: EventRow[]) => Promise<void>;

const BATCH = 100;
const SAFETY_POLL_MS = 5_000;

/** Dispatches every pending event, batch by batch; returns how many. */
export async function dispatchPending(ctx: Pick<Context, 'db'>, subscribers: EventSubscriber[], batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await ctx.db.transaction(async (tx) => {
      const pending = await lockUndispatched(tx, batch);
      for (const subscriber of subscribers) if (pending.length) await subscriber(tx, pending);
      await markDispatched(
        tx,
        pending.map((e) => e.id),
      );
      return pending.length;
    });
    total += count;
    if (count < batch) return total;
  }
}

export interface EventRelay {
  /** Resolves once the relay has stopped (a dispatch under way finishes first). */
  stop(): Promise<void>;
}

/**
 * Runs the relay in this process until stopped. Failures are logged and retried at the next wake-up.
 * `afterDispatch` runs once events have been dispatched and committed (the jobs they caused exist).
 */
export async function startEventRelay(
  ctx: Pick<Context, 'db' | 'database' | 'log'>,
  subscribers: EventSubscriber[],
  afterDispatch: () => void = () => {},
): Promise<EventRelay> {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // Bound to the relay's start: a wake-up runs in no request's async context, though embedded PGlite
  // delivers the notification within the committing request's (whose trace it would join, src/tracing/).
  const run = AsyncResource.bind(() => {
    if (stopped) return;
    if (running) {
      again = true; // a wake-up during a dispatch: go round once more after it
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          if (await dispatchPending(ctx, subscribers)) afterDispatch();
        } catch (err) {
          ctx.log.error({ err }, 'event relay: dispatch failed; retried at the next wake-up');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
  });
  const listener = await listen(
    ctx.database,
    EVENTS_WRITTEN_CHANNEL,
    { onNotify: run, onLive: (live) => live && run() },
    'gigmarket-relay',
  );
  const timer = setInterval(run, SAFETY_POLL_MS);
  timer.unref();
  run();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listener.stop();
      await running;
    },
  };
}
