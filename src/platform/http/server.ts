import Fastify, { LogController, type FastifyError, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { randomUUID } from 'node:crypto';
import type { App, AppDeps } from '../../deps';
import { trustHops } from '../../config-values';
import { ApiError, validationError } from '../errors';
import { ajvToFields, depthLimitedJsonParser, findBadString, validatorCompiler } from './validation';
import { clientErrorHandler } from './client-error';
import { lingerAfterAnswer } from './linger';
import { strictQueryOnRoute, transportErrorsOnRoute } from './route';
import { MESSAGES } from '../messages';
import { serializerBuilderOnFirstUse, validatorOnFirstUse } from './compile-on-first-use';

/**
 * The Fastify instance with the service's server options: request ids, no per-request info log, trusted proxy hops,
 * JSON-only bodies with a depth limit, strict query strings, and router/parser failures answered as ApiErrors.
 * `compileOnFirstUse` (tests only) compiles each route's schemas when a request first needs them
 * (./compile-on-first-use.ts).
 */
export function createServer(deps: Pick<AppDeps, 'config' | 'log'>, logger: FastifyServerOptions['logger'] | false | undefined, opts: { compileOnFirstUse?: boolean } = {}): App {
  const { config } = deps;
  const app = Fastify({
    logger: logger === undefined ? false : logger,
    loggerInstance: logger === undefined ? deps.log : undefined,
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._:-]{8,128}$/.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
    },
    // Successful requests are not logged line by line (ACCESS_LOG=true does that); errors and slow requests always are.
    logController: new LogController({ disableRequestLogging: true }),
    // While closing, requests still arriving on open connections are served (hook below), not refused with Fastify's 503.
    return503OnClosing: false,
    forceCloseConnections: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Router-level failures (malformed URL encoding, over-long path parameters) answer as ApiErrors too.
    frameworkErrors: (error: FastifyError, _req: any, reply: any) => {
      const e = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new ApiError('NOT_FOUND') : validationError([{ field: 'url', message: MESSAGES.http.malformedUrl }]);
      reply.code(e.statusCode).type('application/json; charset=utf-8').send(e.toBody());
    },
    // Requests Node's parser refuses (bad framing, NUL in a header, headers over 16 KB) answer as ApiErrors too.
    clientErrorHandler,
    ...(opts.compileOnFirstUse ? { schemaController: { compilersFactory: { buildSerializer: serializerBuilderOnFirstUse() } } } : {}),
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // A request that reaches a closing server came on a connection opened before the listener closed (a proxy's, a
  // client's): it is served like any request in flight (the database stays open until every connection has ended) and
  // its connection closes after the answer, so nothing more arrives on it. Refusing it with a 503 failed it for good
  // when a proxy had already sent it: a proxy does not resend a POST (drain under load, issue 31).
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) reply.header('Connection', 'close');
  });

  // A body over BODY_LIMIT_BYTES is answered 413 before it is read: read and drop the rest before closing, so every
  // client reads the answer (src/platform/http/linger.ts).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413) lingerAfterAnswer(request.raw);
    done(null, payload);
  });

  app.setValidatorCompiler(opts.compileOnFirstUse ? validatorOnFirstUse(validatorCompiler) : validatorCompiler);
  // Parts no schema validates (the dashboard's and the hosted pages' paths, queries and forms) refuse NUL, lone
  // surrogates and control characters too, as the validator does for the API (issue 30: a NUL in a dashboard path
  // or search reached PostgreSQL and answered 500).
  app.addHook('preValidation', (request, _reply, done) => {
    const schema = (request.routeOptions.schema ?? {}) as Record<string, unknown>;
    const parts: Array<[string, unknown]> = [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ];
    for (const [part, value] of parts) {
      if (schema[part] || value === undefined || value === null) continue;
      const bad = findBadString(value);
      if (bad) return done(validationError(ajvToFields([bad])));
    }
    done();
  });
  // JSON only: drop Fastify's text/plain parser so other media types are refused.
  app.removeContentTypeParser('text/plain');
  // JSON nested deeper than MAX_JSON_DEPTH is refused before JSON.parse (and anything recursive) sees it.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJsonParser(defaultJson as any));
  // GET operations without query parameters refuse any (`?x=1` → VALIDATION_FAILED), like the lists do.
  app.addHook('onRoute', strictQueryOnRoute);
  // Operations whose method carries a body declare 413 PAYLOAD_TOO_LARGE (src/platform/http/route.ts).
  app.addHook('onRoute', transportErrorsOnRoute);
  return app;
}
