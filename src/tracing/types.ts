// What a started tracing offers the app (src/tracing/otel.ts makes it; src/tracing/index.ts holds it).
import type { FastifyPluginCallback } from 'fastify';
import type { QueryTracer } from '../../db/traced.ts';

export interface Tracing {
  /** @fastify/otel's plugin: a span per request and one for its handler (registered first, src/app.ts). */
  fastifyPlugin: FastifyPluginCallback;
  /** Spans around the app's statements and transactions (db/traced.ts). */
  sql: QueryTracer;
  /** The current span as a W3C `traceparent`, or null outside any trace. */
  traceparent(): string | null;
  /** Runs one job in a span of its own, the child of `traceparent` when the job carries one. */
  job<T>(queue: string, job: { id: string; traceparent?: string }, run: () => Promise<T>): Promise<T>;
  /** Sends the spans still waiting (at shutdown). */
  flush(): Promise<void>;
}
