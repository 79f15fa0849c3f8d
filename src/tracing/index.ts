// Traces (OpenTelemetry), off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. This module loads nothing
// of OpenTelemetry: startTracing imports src/tracing/otel.ts, which imports the SDK, only when the
// setting is there, so a server without it starts and runs as before (docs/performance.md).
//
// One trace follows a write from its HTTP request (@fastify/otel's spans) through its SQL (a span
// per statement and per transaction, db/traced.ts) into the outbox: the event row keeps the
// request's `traceparent` (W3C), the relay copies it into the webhook delivery job's data, and the
// job's span continues that trace. The trace context follows the async call chain, as
// OpenTelemetry's does: that is why the two helpers below read the process's tracing, started once.
import type { Config } from '../config.ts';
import type { Tracing } from './types.ts';

export type { Tracing } from './types.ts';

let started: Tracing | undefined;
/** Kept from the first call: a second one while the SDK loads waits for the same start, not a second provider. */
let starting: Promise<Tracing> | undefined;

/** Starts tracing in this process when the settings ask for it (once: OpenTelemetry's registry is global). */
export function startTracing(config: Pick<Config, 'otel'>): Promise<Tracing | undefined> {
  const settings = config.otel;
  if (!settings) return Promise.resolve(undefined);
  starting ??= import('./otel.ts').then(async ({ openTelemetry }) => {
    started = await openTelemetry(settings);
    return started;
  });
  return starting;
}

/** The current span's `traceparent`, for what carries a trace beyond this call (an outbox event, a job); null when tracing is off. */
export function currentTraceparent(): string | null {
  return started ? started.traceparent() : null;
}

/** Runs a job's work in its span when tracing is on, else just runs it. */
export function inJobSpan<T>(queue: string, job: { id: string; traceparent?: string }, run: () => Promise<T>): Promise<T> {
  return started ? started.job(queue, job, run) : run();
}
