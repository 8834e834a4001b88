import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Registry, Counter, Histogram, collectDefaultMetrics } from 'prom-client';
import { randomUUID } from 'node:crypto';
import type { App, AppDeps, Module } from './deps';
import { ApiError, validationError } from './platform/errors';
import { ajvToFields, depthLimitedJsonParser, validatorCompiler } from './platform/http/validation';
import { clientErrorHandler } from './platform/http/client-error';
import { authenticateApiKey, authenticateOperator, authenticateOwner, type ApiKeyRow } from './platform/http/auth';
import { TtlCache } from './platform/cache';
import { API_KEY_CHANGED, changeFeed } from './platform/changes';
import { createLimiter, enforceKeyRateLimit } from './platform/http/rate-limit';
import { beginIdempotency, deferIdempotency, finishIdempotency } from './platform/http/idempotency';
import { buildDocs, swaggerUiOptions } from './platform/openapi';
import docsSite from './docs-site/routes';
import { MODULES } from './modules';
import { trustHops } from './config';
import { op, strictQueryOnRoute } from './platform/http/route';
import { Type } from '@sinclair/typebox';
import { isConnectionError } from './db';
import { consoleAuditHook } from './audit/console-hook';

export const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  '*.secret',
  '*.password',
  '*.key',
  '*.ownerToken',
  '*.smtpUrl',
];

export async function buildApp(deps: AppDeps, opts: { logger?: FastifyServerOptions['logger'] | false; extraModules?: Module[] } = {}): Promise<App> {
  const { config, db, clock } = deps;
  const app = Fastify({
    logger: opts.logger === undefined ? false : opts.logger,
    loggerInstance: opts.logger === undefined ? deps.log : undefined,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._:-]{8,128}$/.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
    },
    // Successful requests are not logged line by line (ACCESS_LOG=true does that); errors and slow requests always are.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
    forceCloseConnections: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Router-level failures (malformed URL encoding, over-long path parameters) answer as ApiErrors too.
    frameworkErrors: (error: FastifyError, _req: any, reply: any) => {
      const e = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new ApiError('NOT_FOUND') : validationError([{ field: 'url', message: '요청 주소의 형식이 올바르지 않습니다.' }]);
      reply.code(e.statusCode).type('application/json; charset=utf-8').send(e.toBody());
    },
    // Requests Node's parser refuses (bad framing, NUL in a header, headers over 16 KB) answer as ApiErrors too.
    clientErrorHandler,
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  // JSON only: drop Fastify's text/plain parser so other media types are refused.
  app.removeContentTypeParser('text/plain');
  // JSON nested deeper than MAX_JSON_DEPTH is refused before JSON.parse (and anything recursive) sees it.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJsonParser(defaultJson as any));
  // GET operations without query parameters refuse any (`?x=1` → VALIDATION_FAILED), like the lists do.
  app.addHook('onRoute', strictQueryOnRoute);

  // ---------- metrics ----------
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
  app.decorate('metricsRegistry', registry);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Commerce API', version: '1.0.0' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer' },
          ownerToken: { type: 'http', scheme: 'bearer' },
          operatorToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    refResolver: { buildLocalReference: (json: any, _base: any, _frag: any, i: number) => json.$id || json.title || `def-${i}` },
  });

  // CORS is registered by the licenses module, on the only routes browsers may call (license app API, signing keys).

  // ---------- request pipeline: request id → auth → rate limit → idempotency → validation → handler ----------
  // API key rows, cached for a few seconds; rotation and revocation in any process drop the entry everywhere at once.
  const keyCache = new TtlCache<ApiKeyRow>(config.apiKeyCacheMs);
  changeFeed(deps.database).on(API_KEY_CHANGED, (hash) => keyCache.delete(hash));
  const limiter = createLimiter({ redis: deps.redis, keyPrefix: 'rl_api', points: config.rateLimitPerMinute, durationSec: 60 });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    (request as any).startedAt = process.hrtime.bigint();
    const meta = request.routeOptions.config?.meta;
    if (!meta) return;
    if (meta.auth === 'api_key') {
      // The key's rate limit is spent as soon as the key is identified, so a 403 (IP, scope) counts too.
      await authenticateApiKey(db, clock, request, reply, meta.scope, (keyId) => enforceKeyRateLimit(limiter, clock, reply, keyId), keyCache);
    } else if (meta.auth === 'owner') {
      await authenticateOwner(db, request);
    } else if (meta.auth === 'operator') {
      authenticateOperator(config.adminToken, request);
    }
  });

  app.addHook('preValidation', async (request, reply) => {
    if (request.routeOptions.config?.meta?.idempotent) {
      if (request.routeOptions.config.claimInWrite && deferIdempotency(db, clock, config.idempotencyRetentionHours, request, reply)) return;
      await beginIdempotency(db, clock, config.idempotencyRetentionHours, request, reply);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.idempotency) {
      try {
        await finishIdempotency(db, request, reply, payload);
      } catch (err) {
        // The database went away after the answer was made (a lost connection): send that answer anyway rather
        // than a second, non-ApiError failure. The key stays 'processing' and is reclaimed after its lock expires.
        request.log.error({ err, status: reply.statusCode }, 'idempotency record not finished');
      }
    }
    return payload;
  });

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
      request.log[ms >= config.slowRequestMs ? 'warn' : 'info']({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(ms * 10) / 10 }, ms >= config.slowRequestMs ? 'slow request' : 'request');
    }
  });

  // Successful state-changing console calls (owner token) go into the audit log (src/audit/console-hook.ts).
  app.addHook('onResponse', consoleAuditHook(deps));

  // ---------- errors: every answer that is not a success is an ApiError ----------
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let apiError: ApiError;
    if (isConnectionError(error) && (!(error instanceof ApiError) || error.code === 'INTERNAL_ERROR')) {
      // The database connection was lost or cannot be made (restart, failover): retryable, never a 500.
      apiError = new ApiError('SERVICE_UNAVAILABLE', {
        details: { retryable: true },
        headers: { 'Retry-After': '5' },
        internal: 'database connection unavailable',
        cause: error,
      });
    } else if (error instanceof ApiError) {
      apiError = error;
    } else if ((error as FastifyError).validation) {
      const fe = error as FastifyError;
      apiError = validationError(ajvToFields(fe.validation as any, fe.validationContext));
    } else {
      const code = (error as FastifyError).code;
      const status = (error as FastifyError).statusCode ?? 500;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) apiError = new ApiError('PAYLOAD_TOO_LARGE');
      else if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415)
        apiError = validationError([{ field: 'Content-Type', message: 'Content-Type은 application/json이어야 합니다.' }]);
      else if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') apiError = validationError([{ field: 'body', message: '요청 본문이 비어 있습니다.' }]);
      else if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || (status === 400 && /JSON/i.test(error.message)))
        apiError = validationError([{ field: 'body', message: 'JSON 형식이 올바르지 않습니다.' }]);
      else if (status >= 400 && status < 500) apiError = validationError([{ field: 'request', message: '요청 형식이 올바르지 않습니다.' }]);
      else {
        request.log.error({ err: error }, 'unhandled error');
        apiError = new ApiError('INTERNAL_ERROR');
      }
    }
    // 501 is a documented answer (an operation not offered yet), not a failure: no error-level alert for it.
    if (apiError.code === 'NOT_IMPLEMENTED') request.log.warn({ code: apiError.code, url: request.url }, 'not implemented');
    else if (apiError.statusCode >= 500) request.log.error({ err: apiError.cause ?? apiError, code: apiError.code, internal: apiError.internal }, 'request failed');
    else if (apiError.internal) request.log.info({ code: apiError.code, internal: apiError.internal }, 'request refused');
    if (apiError.headers) for (const [k, v] of Object.entries(apiError.headers)) reply.header(k, v);
    reply.code(apiError.statusCode).type('application/json; charset=utf-8').send(apiError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).type('application/json; charset=utf-8').send(new ApiError('NOT_FOUND').toBody());
  });

  // ---------- operations ----------
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_req, reply) => {
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
    return registry.metrics();
  });

  // ---------- modules ----------
  for (const mod of [...MODULES, ...(opts.extraModules ?? [])]) {
    await app.register(async (scope) => mod(scope as App, deps));
  }

  // ---------- documents ----------
  let docs: ReturnType<typeof buildDocs> | null = null;
  const getDocs = () => (docs ??= buildDocs(app));
  app.get(
    '/v1/openapi.json',
    op(
      { operationId: 'getOpenApi', summary: 'This machine-readable description (OpenAPI 3.1)', tags: ['Meta'] },
      { auth: 'none' },
      { response: { 200: Type.Object({}, { additionalProperties: true, title: 'OpenApiDocument', description: 'An OpenAPI 3.1 document' }) } },
    ),
    async () => getDocs().v1,
  );
  app.get('/admin/v1/openapi.json', { schema: { hide: true } }, async () => getDocs().admin);
  // /docs is the guides' index (src/docs-site); the public reference is one of its pages, /docs/reference.
  await app.register(swaggerUi, swaggerUiOptions('v1', '/docs/reference', getDocs));
  await app.register(async (scope) => {
    await scope.register(swaggerUi, swaggerUiOptions('admin', '/admin/docs', getDocs));
  });
  await app.register(docsSite);

  await app.ready();
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsRegistry: Registry;
  }
}
