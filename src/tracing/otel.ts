// OpenTelemetry's SDK, loaded by src/tracing/index.ts only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
// Every package is import()ed here, not imported: the server's bundle keeps a package imported at
// the top of any of its modules loading at start (scripts/server-bundle.ts).
// No require hook and no patched module: the spans come from @fastify/otel (a Fastify plugin), from
// our wrapper at the data layer's boundary (db/traced.ts) and from the job runner (inJobSpan), so
// the SDK may start at any point before the database and the app are built (src/runtime.ts).
// Spans go to `{endpoint}/v1/traces` as OTLP JSON, batched; the exporter also honours its standard
// variables for what this does not set (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION).
import type { Attributes, Context } from '@opentelemetry/api';
import type { FastifyPluginCallback } from 'fastify';
import type { OtelSettings } from '../config.ts';
import type { Tracing } from './types.ts';

/** A statement's span: `SELECT gigs`, from the first keyword and the first table it names (a label, not a parse). */
function statementName(text: string): string {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update)\s+"?([\w.]+)"?/i.exec(text)?.[1];
  return table ? `${operation} ${table}` : operation;
}

/** Paths polled by orchestrators and scrapers: a trace each would drown the requests worth reading. */
const UNTRACED_PATHS = /^\/(api\/health|metrics)(\/|\?|$)/;

export async function openTelemetry(settings: OtelSettings): Promise<Tracing> {
  const [
    api,
    { TracerProvider, BatchSpanProcessor, AlwaysOnSampler },
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    resources,
    exporter,
    fastifyOtel,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@fastify/otel'),
  ]);
  const { context, propagation, trace, SpanKind, SpanStatusCode, ROOT_CONTEXT } = api;
  const provider = new TracerProvider({
    // Every request is sampled: with the default (parent-based), a caller's `traceparent` flagged
    // "not sampled" would switch tracing off for its request and for the deliveries that follow it.
    sampler: new AlwaysOnSampler(),
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` }) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('gigmarket');

  /** Runs `run` in a new span, the child of `parent`; a failure marks the span with its error's code or name only (a message may quote a value). */
  async function inSpan<T>(name: string, parent: Context, kind: number, attributes: Attributes, run: () => PromiseLike<T>): Promise<T> {
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), run);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', typeof code === 'string' ? code : err instanceof Error ? err.name : 'error');
      throw err;
    } finally {
      span.end();
    }
  }

  // SQL is traced within a trace only: the relay's polls and the workers' fetches would each start one.
  const sql: Tracing['sql'] = {
    statement(text, run) {
      const parent = context.active();
      if (!trace.getSpan(parent)) return Promise.resolve(run());
      const attributes = { 'db.system.name': 'postgresql', 'db.query.text': text, 'db.operation.name': statementName(text).split(' ')[0] };
      return inSpan(statementName(text), parent, SpanKind.CLIENT, attributes, run);
    },
    transaction(run) {
      const parent = context.active();
      if (!trace.getSpan(parent)) return run();
      return inSpan('transaction', parent, SpanKind.CLIENT, { 'db.system.name': 'postgresql' }, run);
    },
  };

  const instrumentation = new fastifyOtel.FastifyOtelInstrumentation({
    // A span per request and one for its handler; the hooks' time shows as the gap between them.
    instrumentHooks: false,
    ignorePaths: (route) => UNTRACED_PATHS.test(route.url),
    requestHook(span, request) {
      // @fastify/otel records the URL as received; its query (an onboarding link's token, an OAuth
      // callback's code and state) and any fragment stay out of what leaves the process.
      span.setAttribute('url.path', request.url.replace(/[?#].*/s, ''));
      span.updateName(`${request.method} ${request.routeOptions.url ?? 'unknown route'}`);
      const operationId = request.routeOptions.config?.operationId;
      if (typeof operationId === 'string') span.setAttribute('gigmarket.operation_id', operationId);
    },
    // The handler's span would be named after its function, which the spec's routes do not name.
    lifecycleHook(span, { hookName, request }) {
      if (hookName === 'handler') span.updateName(`handler ${request.routeOptions.config?.operationId ?? request.routeOptions.url}`);
    },
  });
  instrumentation.setTracerProvider(provider);

  return {
    fastifyPlugin: instrumentation.plugin() as FastifyPluginCallback,
    sql,
    traceparent() {
      const carrier: { traceparent?: string } = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent ?? null;
    },
    job(queue, job, run) {
      const parent = job.traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent: job.traceparent }) : ROOT_CONTEXT;
      const attributes = {
        'messaging.system': 'pg-boss',
        'messaging.operation.type': 'process',
        'messaging.destination.name': queue,
        'messaging.message.id': job.id,
      };
      return inSpan(`process ${queue}`, parent, SpanKind.CONSUMER, attributes, run);
    },
    // Bounded: a collector that does not answer must not hold a shutdown past its grace period.
    flush: () => provider.forceFlush({ timeoutMillis: 5000 }),
  };
}
