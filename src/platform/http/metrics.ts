import { Registry, Counter, Histogram, collectDefaultMetrics } from 'prom-client';
import type { App, AppDeps } from '../../deps';
import { processMetrics } from '../metrics-registry';
import { tracing } from '../telemetry';
import { safeEqualString } from '../crypto';

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
  let retried = 0;
  new Counter({
    name: 'db_transaction_retries_total',
    help: 'Transactions run again after PostgreSQL ended them as a deadlock victim or for a serialization failure',
    registers: [registry],
    collect() {
      const now = deps.database.stats.deadlockRetries ?? 0;
      if (now > retried) this.inc(now - retried);
      retried = now;
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
export function registerOperationsRoutes(app: App, deps: Pick<AppDeps, 'database' | 'lifecycle' | 'config'>, registry: Registry): void {
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
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const access = metricsAccess(deps.config, req.headers, req.socket.remoteAddress);
    if (access !== 'ok') {
      if (access === 'unauthorized') reply.header('www-authenticate', 'Bearer realm="metrics"');
      return reply.code(access === 'unauthorized' ? 401 : 404).type('text/plain; charset=utf-8').send(METRICS_REFUSED[access]);
    }
    reply.type(registry.contentType);
    return metricsText(registry);
  });
}

/** The exposition text: this app's registry, then the process's `commerce_*` metrics. */
export async function metricsText(registry: Registry): Promise<string> {
  const [own, business] = await Promise.all([registry.metrics(), processMetrics.metrics()]);
  return `${own}${business}`;
}

const METRICS_REFUSED = {
  unauthorized: '/metrics needs METRICS_TOKEN as a bearer token (Authorization: Bearer <METRICS_TOKEN>), or a scrape from this machine when no token is set\n',
  not_here: 'Not Found\n',
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Who may read /metrics (issue 30: its counters and route list are not for the public). With METRICS_TOKEN: whoever
 * sends it as a bearer token (compared in constant time). Else with METRICS_LISTEN: nobody on the service's listener
 * (the metrics have a listener of their own). Else, the default: a scraper on this machine talking to the process
 * directly, i.e. a loopback peer with no forwarding header, since a proxy on the same machine relays the public from
 * loopback too (and adds X-Forwarded-For; one that adds nothing must not forward /metrics, see the manual).
 */
export function metricsAccess(
  config: { metricsToken: string | null; metricsListen: { host: string; port: number } | null },
  headers: Record<string, string | string[] | undefined>,
  peer: string | undefined,
  ownListener = false,
): 'ok' | 'unauthorized' | 'not_here' {
  if (config.metricsToken) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(String(headers.authorization ?? ''));
    return m && safeEqualString(m[1]!, config.metricsToken) ? 'ok' : 'unauthorized';
  }
  if (config.metricsListen && !ownListener) return 'not_here';
  if (ownListener) return 'ok';
  const forwarded = headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || headers['x-real-ip'] !== undefined;
  return peer && LOOPBACK.test(peer) && !forwarded ? 'ok' : 'unauthorized';
}

/**
 * METRICS_LISTEN: /metrics alone on its own address (127.0.0.1 unless configured otherwise), still behind
 * METRICS_TOKEN when that is set. Resolves once it listens; the returned function closes it.
 */
export async function serveMetricsListener(config: { metricsToken: string | null; metricsListen: { host: string; port: number } | null }, registry: Registry): Promise<{ port: number; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(METRICS_REFUSED.not_here);
    const access = metricsAccess(config, req.headers, req.socket.remoteAddress, true);
    if (access !== 'ok') return void res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' }).end(METRICS_REFUSED.unauthorized);
    metricsText(registry).then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metricsListen!.port, config.metricsListen!.host, () => resolve());
  });
  server.unref();
  const address = server.address();
  return { port: address && typeof address === 'object' ? address.port : config.metricsListen!.port, close: () => new Promise((r) => server.close(() => r())) };
}
