import type { FastifyError, FastifyBaseLogger } from 'fastify';
import type { App } from '../../deps';
import { ApiError, validationError } from '../errors';
import { ajvToFields } from './validation';
import { isConnectionError } from '../../db';
import { MESSAGES } from '../messages';
import { UNMATCHED_ROUTE } from '../redact';

/** Any error a request ends in, as the ApiError its answer is: every answer that is not a success is one. */
export function toApiError(error: FastifyError | ApiError, log: FastifyBaseLogger): ApiError {
  if (isConnectionError(error) && (!(error instanceof ApiError) || error.code === 'INTERNAL_ERROR')) {
    // The database connection was lost or cannot be made (restart, failover): retryable, never a 500.
    return new ApiError('SERVICE_UNAVAILABLE', {
      details: { retryable: true },
      headers: { 'Retry-After': '5' },
      internal: 'database connection unavailable',
      cause: error,
    });
  }
  if (error instanceof ApiError) return error;
  if ((error as FastifyError).validation) {
    const fe = error as FastifyError;
    return validationError(ajvToFields(fe.validation as any, fe.validationContext));
  }
  const code = (error as FastifyError).code;
  const status = (error as FastifyError).statusCode ?? 500;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415)
    return validationError([{ field: 'Content-Type', message: MESSAGES.http.contentTypeNotJson }]);
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return validationError([{ field: 'body', message: MESSAGES.http.emptyBody }]);
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError || (status === 400 && /JSON/i.test(error.message)))
    return validationError([{ field: 'body', message: MESSAGES.http.invalidJson }]);
  if (status >= 400 && status < 500) return validationError([{ field: 'request', message: MESSAGES.http.malformedRequest }]);
  log.error({ err: error }, 'unhandled error');
  return new ApiError('INTERNAL_ERROR');
}

/** The error and not-found handlers: one ApiError body for every failure, logged by its severity. */
export function installErrorHandlers(app: App): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error, request.log);
    // 501 is a documented answer (an operation not offered yet), not a failure: no error-level alert for it.
    if (apiError.code === 'NOT_IMPLEMENTED') request.log.warn({ code: apiError.code, route: request.routeOptions.url ?? UNMATCHED_ROUTE }, 'not implemented');
    else if (apiError.statusCode >= 500) request.log.error({ err: apiError.cause ?? apiError, code: apiError.code, internal: apiError.internal }, 'request failed');
    else if (apiError.internal) request.log.info({ code: apiError.code, internal: apiError.internal }, 'request refused');
    if (apiError.headers) for (const [k, v] of Object.entries(apiError.headers)) reply.header(k, v);
    reply.code(apiError.statusCode).type('application/json; charset=utf-8').send(apiError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).type('application/json; charset=utf-8').send(new ApiError('NOT_FOUND').toBody());
  });
}
