// One webhook delivery attempt (src/services/webhooks.ts runDeliveryJob): the job records its own
// outcome and enqueues the next attempt on the retry schedule, so pg-boss never retries it itself.
import { DELIVERY_TIMEOUT_MS, runDeliveryJob } from '../src/services/webhooks.ts';
import { WEBHOOK_DELIVERY_QUEUE, type QueuePayloads } from './queues.ts';
import type { JobDefinition } from './boss.ts';
import type { Context } from '../src/context.ts';

export function webhookDeliveryJob(ctx: Context): JobDefinition<QueuePayloads[typeof WEBHOOK_DELIVERY_QUEUE]> {
  return {
    name: WEBHOOK_DELIVERY_QUEUE,
    // The 15 s attempt (DNS, connect, response) and two short writes; a crashed attempt is retried
    // after this (plus pg-boss's supervision), as the same job: at least once.
    expireInSeconds: Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 15,
    // Attempts mostly wait on the network: several at once per process...
    concurrency: 8,
    // ...but at most one per endpoint across every process (each job's group is its endpoint), so a
    // slow or dead endpoint holds one worker, never all of them, and other endpoints go on.
    groupConcurrency: 1,
    // Deliveries should not wait pg-boss's default 2 s poll (retries due in 5 s especially).
    pollingIntervalSeconds: 0.5,
    async handler(data) {
      await runDeliveryJob(ctx, data);
    },
  };
}
