import { Registry, Counter, Histogram, collectDefaultMetrics } from 'prom-client';
import type { App, AppDeps } from '../../deps';
import { processMetrics } from '../metrics-registry';
import { tracing } from '../telemetry';

/**
 * Prometheus metrics (`/metrics`): process defaults, requests and their latency by route and status, and the
 * statements this process sent to its database. Also writes the access log line, only when ACCESS_LOG is set or the
 * request was slow (SLOW_REQUEST_MS). Returns the registry the /metrics route serves.
 */
export function installMetrics(app: App, deps: Pick<AppDeps, 'config' | 'database' | 'lifecycle'>): Registry {
  const { config } = deps;
  // While draining (SIGTERM received, listener still open) every response closes its connection, so keep-alive
  // connections (a proxy's, a client's) leave this process before its listener closes and the next request goes elsewhere.
  const lifecycle = deps.lifecycle;
  if (lifecycle) {
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (lifecycle.draining) reply.header('connection', 'close');
      done(null, payload);
    });
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const reqCounter = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status_code'], registers: [registry] });
  const reqDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  let counted = 0;
  new Counter({
    name: 'db_statements_total',
    help: 'Statements sent to the database by this process (transaction control included)',
    registers: [registry],
    collect() {
      const now = deps.database.stats.statements;
      if (now > counted) this.inc(now - counted);
      counted = now;
    },
  });

  // Callback style: no promise per request for one assignment.
  app.addHook('onRequest', (request, _reply, done) => {
    (request as any).startedAt = process.hrtime.bigint();
    done();
  });
  // With tracing on, the HTTP server span (opened by the http instrumentation before routing) takes the route's name.
  const t = tracing();
  if (t) {
    app.addHook('onRequest', (request, _reply, done) => {
      t.nameServerSpan(request.method, request.routeOptions.url ?? 'unmatched');
      done();
    });
  }

  // Per request: one map lookup for the metric children of its route and status (prom-client's label hashing is the
  // costly part, so it runs once per route/status pair), then the access log only when asked for or when slow.
  const children = new Map<string, { count: ReturnType<typeof reqCounter.labels>; duration: ReturnType<typeof reqDuration.labels> }>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${route} ${reply.statusCode}`;
    let c = children.get(key);
    if (!c) {
      const status = String(reply.statusCode);
      c = { count: reqCounter.labels(request.method, route, status), duration: reqDuration.labels(request.method, route, status) };
      children.set(key, c);
    }
    c.count.inc();
    const started = (request as any).startedAt as bigint | undefined;
    if (!started) return;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    c.duration.observe(ms / 1000);
    if (config.accessLog || ms >= config.slowRequestMs) {
      // The route template, never the raw URL: paths and query strings carry portal and receipt tokens, Toss's authKey and
      // buyers' addresses (issue 30, src/platform/redact.ts).
      request.log[ms >= config.slowRequestMs ? 'warn' : 'info']({ method: request.method, route, status: reply.statusCode, ms: Math.round(ms * 10) / 10 }, ms >= config.slowRequestMs ? 'slow request' : 'request');
    }
  });
  return registry;
}

/**
 * `/health` (the process answers), `/ready` (and its database does, and it is not draining: 503 `draining` from SIGTERM
 * on, so a proxy stops sending it requests) and `/metrics` (this app's registry, then the process's `commerce_*`
 * metrics, src/platform/metrics-registry.ts); hidden from the API documents.
 */
export function registerOperationsRoutes(app: App, deps: Pick<AppDeps, 'database' | 'lifecycle'>, registry: Registry): void {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_req, reply) => {
    if (deps.lifecycle?.draining) {
      reply.code(503);
      return { status: 'draining' };
    }
    try {
      await deps.database.ping();
      return { status: 'ready' };
    } catch {
      reply.code(503);
      return { status: 'unavailable' };
    }
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    const [own, business] = await Promise.all([registry.metrics(), processMetrics.metrics()]);
    return `${own}${business}`;
  });
}
