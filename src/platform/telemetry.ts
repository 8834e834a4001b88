/**
 * The service's view of tracing: a few calls that cost nothing when tracing is off.
 *
 * OpenTelemetry is loaded only when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: then
 * bin/commerce.js runs dist/tracing.js (src/tracing.ts) before the service's own code is imported, and that module
 * installs the implementation below under a global symbol. This file imports nothing from @opentelemetry, so a
 * process without tracing never loads it (test/platform/telemetry-off.test.ts checks that).
 */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** What code inside a span may tell it. */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span as failed (status ERROR) with a short reason. */
  fail(message: string): void;
}

export interface Tracing {
  /** Runs `fn` in a new span, a child of the active one; the span ends when `fn` settles (failed if it throws). */
  withSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, kind?: 'internal' | 'client'): Promise<T>;
  /** The active span's ids, for log lines; null when none is active. */
  ids(): { trace_id: string; span_id: string } | null;
  /** Names the active HTTP server span after its route (`POST /v1/checkout/sessions`), as the route is known only after routing. */
  nameServerSpan(method: string, route: string): void;
  /** Sends the spans still buffered (at shutdown). */
  flush(): Promise<void>;
}

const KEY = Symbol.for('commerce-api.tracing');

/** Installed once by src/tracing.ts when tracing is configured. */
export function installTracing(impl: Tracing): void {
  (globalThis as Record<symbol, unknown>)[KEY] = impl;
}

/** The tracing implementation, or null when tracing is off. */
export function tracing(): Tracing | null {
  return ((globalThis as Record<symbol, unknown>)[KEY] as Tracing | undefined) ?? null;
}

const NOOP_SPAN: SpanHandle = { setAttributes() {}, fail() {} };

/** `fn` inside a span when tracing is on; otherwise just `fn` (one property read). */
export function withSpan<T>(name: string, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, kind: 'internal' | 'client' = 'internal'): Promise<T> {
  const t = tracing();
  return t ? t.withSpan(name, attributes, fn, kind) : fn(NOOP_SPAN);
}

/** A pino `mixin` adding trace_id/span_id to every line written while a span is active; undefined when tracing is off. */
export function traceLogMixin(): (() => object) | undefined {
  const t = tracing();
  if (!t) return undefined;
  return () => t.ids() ?? {};
}
