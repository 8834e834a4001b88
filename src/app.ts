import { LOG_REDACT_PATHS } from './platform/redact';
import type { FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Registry } from 'prom-client';
import type { App, AppDeps, Module } from './deps';
import { createServer } from './platform/http/server';
import { installMetrics, registerOperationsRoutes } from './platform/http/metrics';
import { installRequestPipeline } from './platform/http/pipeline';
import { installErrorHandlers } from './platform/http/error-handler';
import { buildDocs, swaggerUiOptions } from './platform/openapi';
import docsSite from './docs-site/routes';
import { MODULES } from './modules';
import { op } from './platform/http/route';
import { Type } from '@sinclair/typebox';
import { consoleAuditHook } from './audit/console-hook';

/** pino's redaction paths: src/platform/redact.ts holds the one list of what counts as secret. */
export const REDACT = LOG_REDACT_PATHS;

/**
 * The Fastify app, assembled in a visible order: the server and its parsers → metrics → the OpenAPI generator → the
 * request pipeline (request id, auth, rate limit, idempotency) → the console audit hook → error handlers →
 * operations routes → every domain module (src/modules.ts) → the API documents and guides. Route schemas are compiled on
 * each route's first use in every app (src/platform/http/lazy-serializer.ts, validation.ts); tests build the same app
 * with `compileOnFirstUse`, which also renders the documentation pages when first asked (a test file reads few).
 */
export async function buildApp(
  deps: AppDeps,
  opts: { logger?: FastifyServerOptions['logger'] | false; extraModules?: Module[]; compileOnFirstUse?: boolean } = {},
): Promise<App> {
  const app = createServer(deps, opts.logger);
  const registry = installMetrics(app, deps);
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
  installRequestPipeline(app, deps);
  // Successful state-changing console calls (owner token) go into the audit log (src/audit/console-hook.ts).
  app.addHook('onResponse', consoleAuditHook(deps));
  installErrorHandlers(app);
  registerOperationsRoutes(app, deps, registry);

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
  await app.register(docsSite, { renderOnFirstUse: opts.compileOnFirstUse });

  await app.ready();
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    metricsRegistry: Registry;
  }
}
