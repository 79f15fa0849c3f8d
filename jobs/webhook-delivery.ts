// Webhook delivery attempts (src/services/webhook-delivery.ts): each job records its own outcome and
// enqueues the next attempt on the retry schedule, so pg-boss retries a job only when recording
// failed or its process died.
import { DELIVERY_TIMEOUT_MS, deliveryRunner } from '../src/services/webhook-delivery.ts';
import { WEBHOOK_DELIVERY_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import type { Context } from '../src/context.ts';
import { inJobSpan } from '../src/tracing/index.ts';

/** Attempts one process makes at once. */
export const DELIVERY_SLOTS = 64;
/** Attempts to one endpoint at once, across every process. */
export const DELIVERY_SLOTS_PER_ENDPOINT = 4;

export function webhookDeliveryJob(ctx: Context): JobDefinition<QueuePayloads[typeof WEBHOOK_DELIVERY_QUEUE]> {
  const deliver = deliveryRunner(ctx);
  return {
    name: WEBHOOK_DELIVERY_QUEUE,
    // The 15 s attempt (DNS, connect, response) and the writes after it; a crashed attempt is
    // retried after this (plus pg-boss's supervision), as the same job: at least once.
    expireInSeconds: Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 15,
    // The delivery log (webhook_deliveries) is the record of each attempt; a completed job is not.
    deleteAfterSeconds: 3600,
    // Each job's group is its endpoint: a slow or dead endpoint holds its own slots, never the
    // others', and every other endpoint's deliveries go on.
    slots: DELIVERY_SLOTS,
    groupConcurrency: DELIVERY_SLOTS_PER_ENDPOINT,
    // The relay wakes the worker of its process when it enqueues (src/runtime.ts); the poll is for
    // retries, which become due later, and for jobs other processes enqueued.
    pollingIntervalSeconds: 0.5,
    // Traces: each attempt in a span of its own, in the trace of the request that wrote its event.
    run: (job) => inJobSpan(WEBHOOK_DELIVERY_QUEUE, { id: job.id, traceparent: job.data.traceparent }, () => deliver(job)),
  };
}
