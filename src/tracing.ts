/**
 * OpenTelemetry tracing, started by bin/commerce.js before the service is imported, and only when
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set. Built as its own file (dist/tracing.js)
 * so that nothing from @opentelemetry is loaded otherwise.
 *
 * Order matters: instrumentations patch modules when they are loaded, so this runs first and the service (which
 * imports fastify, pg and ioredis) is imported afterwards. The bundle loads those packages with ESM `import`, so the
 * import-in-the-middle loader hook is registered too (module.register); CommonJS `require`s inside the packages are
 * patched by require-in-the-middle as usual.
 *
 * Spans: the HTTP server request (renamed after its route by a Fastify hook, src/platform/http/metrics.ts),
 * PostgreSQL statements (pg), Redis commands (ioredis), outgoing fetch (undici) and http.request calls, and the
 * service's own spans through src/platform/telemetry.ts: PGlite statements, Toss calls, webhook deliveries, mails.
 * Exported over OTLP/HTTP (JSON) to the configured endpoint; the standard OTEL_* variables apply (service name,
 * resource attributes, sampler, batch delays).
 */
import { register } from 'node:module';
import { installTracing, type SpanAttributes } from './platform/telemetry';
import { redactSpanAttributes } from './platform/redact';

export const tracingConfigured = (env: NodeJS.ProcessEnv): boolean => Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';

/** Paths probed by load balancers and scrapers every few seconds: no trace for each. */
const UNTRACED_PATHS = new Set(['/health', '/ready', '/metrics']);

export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!tracingConfigured(env)) return;
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { TracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, AlwaysOnSampler, AlwaysOffSampler } = await import('@opentelemetry/sdk-trace');
  const { resourceFromAttributes, defaultResource, detectResources, envDetector } = await import('@opentelemetry/resources');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } = await import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = await import('@opentelemetry/instrumentation-ioredis');

  // Later merges win: the SDK's defaults, our service name, then OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'commerce-api' }))
    .merge(detectResources({ detectors: [envDetector] }));
  // The trace SDK package reads no environment itself: the sampler and batch delay variables are read here.
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const root = env.OTEL_TRACES_SAMPLER?.endsWith('always_off')
    ? new AlwaysOffSampler()
    : env.OTEL_TRACES_SAMPLER?.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? ratio : 1)
      : new AlwaysOnSampler();
  const sampler = env.OTEL_TRACES_SAMPLER?.startsWith('parentbased_') || !env.OTEL_TRACES_SAMPLER ? new ParentBasedSampler({ root }) : root;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const processor = new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...(delay > 0 ? { scheduledDelayMillis: delay } : {}) });
  // Redaction at the source (issue 30): before a span ends, and so before any exporter sees it, its URL attributes
  // name the route template and its query values and credential headers are gone (src/platform/redact.ts).
  const redacting = {
    onStart: () => {},
    onEnding(span: { kind: number; name: string; attributes: Record<string, unknown>; updateName(n: string): unknown }) {
      const kind = span.kind === api.SpanKind.SERVER ? 'server' : span.kind === api.SpanKind.CLIENT ? 'client' : 'internal';
      if (kind === 'internal' && !Object.keys(span.attributes).some((k) => k.startsWith('url.') || k.startsWith('http.'))) return;
      const name = redactSpanAttributes(kind, span.attributes, span.name);
      if (name !== span.name) span.updateName(name);
    },
    onEnd: () => {},
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [redacting as any, processor] });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!) }),
      new UndiciInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });

  const tracer = provider.getTracer('commerce-api');
  const clean = (a: SpanAttributes) => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean>;
  installTracing({
    withSpan(name, attributes, fn, kind = 'internal') {
      return tracer.startActiveSpan(name, { kind: kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL, attributes: clean(attributes) }, async (span) => {
        try {
          return await fn({
            setAttributes: (a) => span.setAttributes(clean(a)),
            fail: (message) => span.setStatus({ code: api.SpanStatusCode.ERROR, message }),
          });
        } catch (err) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    ids() {
      const ctx = api.trace.getActiveSpan()?.spanContext();
      return ctx && api.isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : null;
    },
    nameServerSpan(method, route) {
      const span = api.trace.getActiveSpan();
      if (!span) return;
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
    },
    flush: () => provider.forceFlush(),
  });
}
