import type { FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { ApiError, ERROR_CATALOG, type ErrorCode } from '../errors';
import { ApiErrorSchema, EmptyQuery } from './schemas';

export const SCOPES = [
  'checkout:read',
  'checkout:write',
  'orders:read',
  'products:read',
  'licenses:read',
  'refunds:read',
  'refunds:write',
  'subscriptions:read',
  'subscriptions:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route declares about itself. The platform hooks read it (authentication, scope, rate limit,
 * idempotency) and the OpenAPI document is built from it, so no route repeats that code.
 */
export interface RouteMeta {
  /** `api_key`: the public API's bearer key; `owner`: the seller console's owner token; `operator`: ADMIN_TOKEN; `none`: public. */
  auth: 'api_key' | 'owner' | 'operator' | 'none';
  scope?: Scope;
  /** Requires `Idempotency-Key` and stores/replays the answer (every POST of the public API except the license app API). */
  idempotent?: boolean;
  /** The documented error codes of this operation, beside the ones the platform adds (auth, validation, rate limit…). */
  errors?: ErrorCode[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    meta?: RouteMeta;
  }
}

export interface OpDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
}

/**
 * Codes every route of a given kind can answer, added to what the route lists itself. Besides auth, validation and
 * rate limits, every operation can be refused before its route runs: 408 REQUEST_TIMEOUT (the request did not
 * arrive in time) and 431 HEADERS_TOO_LARGE (headers over 16 KB), both written by clientErrorHandler; operations
 * whose method carries a body also answer 413 PAYLOAD_TOO_LARGE (over BODY_LIMIT_BYTES), added by
 * `transportErrorsOnRoute`, which knows the method.
 */
export function platformErrors(meta: RouteMeta): ErrorCode[] {
  // SERVICE_UNAVAILABLE (503, Retry-After): the database is unreachable or the server is shutting down; any operation can answer it.
  const codes: ErrorCode[] = ['VALIDATION_FAILED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE'];
  if (meta.auth === 'api_key') codes.push('API_KEY_INVALID', 'API_KEY_IP_NOT_ALLOWED', 'RATE_LIMITED');
  if (meta.auth === 'api_key' && meta.scope) codes.push('API_KEY_SCOPE_MISSING');
  if (meta.auth === 'owner' || meta.auth === 'operator') codes.push('ADMIN_UNAUTHORIZED');
  if (meta.idempotent) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_CONFLICT');
  return codes;
}

export function allErrors(meta: RouteMeta): ErrorCode[] {
  return [...new Set([...(meta.errors ?? []), ...platformErrors(meta)])];
}

/** The error responses (ApiError, one per status, its description the codes) and the description's code line. */
function withErrors(schema: Record<string, any>, codes: ErrorCode[]): void {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) {
    const s = ERROR_CATALOG[c].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), c]);
  }
  const response: Record<string, unknown> = { ...(schema.response ?? {}) };
  for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    response[String(status)] = { ...ApiErrorSchema, description: list.join(', ') };
  }
  schema.response = response;
  schema['x-error-codes'] = codes;
  const line = `Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`;
  const description = String(schema.description ?? '').replace(/(^|\n\n)Error codes: [^\n]*$/, '');
  schema.description = [description, line].filter(Boolean).join('\n\n');
}

/**
 * Builds a route's `schema` and `config` from its documentation, meta and TypeBox schemas:
 *   app.post('/v1/x', op({ operationId, summary, tags }, { auth: 'api_key', scope, idempotent: true, errors }, { body, response: { 200: X } }), handler)
 * Error responses (ApiError, grouped by status with their codes) are added to the schema, so they are both
 * serialized and documented. The TypeBox type of `schema` is kept, so handlers are typed from it.
 */
export function op<S extends FastifySchema>(doc: OpDoc, meta: RouteMeta, schema: S): { schema: S; config: { meta: RouteMeta }; preValidation: typeof checkPathIds } {
  const security =
    meta.auth === 'api_key' ? [{ apiKey: [] }] : meta.auth === 'owner' ? [{ ownerToken: [] }] : meta.auth === 'operator' ? [{ operatorToken: [] }] : [];
  const descParts = [doc.description ?? ''];
  if (meta.scope) descParts.push(`Required scope: \`${meta.scope}\`.`);
  if (meta.idempotent) descParts.push('Requires an `Idempotency-Key` header (1 to 255 characters after trimming).');
  const full: Record<string, any> = {
    ...schema,
    operationId: doc.operationId,
    summary: doc.summary,
    description: descParts.filter(Boolean).join('\n\n'),
    tags: doc.tags,
    security,
    'x-required-scope': meta.scope ?? null,
    'x-idempotent': meta.idempotent ?? false,
  };
  withErrors(full, allErrors(meta));
  return { schema: full as unknown as S, config: { meta }, preValidation: checkPathIds };
}

/** Methods whose requests carry a body Fastify reads (and refuses over the body limit). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * onRoute hook: an operation (a route built with `op`) whose method carries a body declares 413 PAYLOAD_TOO_LARGE,
 * the answer to a body over BODY_LIMIT_BYTES, whether or not it declares a body schema. New routes inherit it.
 */
export function transportErrorsOnRoute(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((m) => BODY_METHODS.has(m))) return;
  const schema = route.schema as Record<string, any> | undefined;
  const codes = schema?.['x-error-codes'] as ErrorCode[] | undefined;
  if (!schema || !codes || codes.includes('PAYLOAD_TOO_LARGE')) return;
  const next = { ...schema };
  withErrors(next, [...codes, 'PAYLOAD_TOO_LARGE']);
  route.schema = next;
}

/** Characters ids are made of (type prefix, `_`, base32 body); anything else cannot name a stored row. */
const ID_CHARS = /^[A-Za-z0-9_-]*$/;

/** The route's own *_NOT_FOUND code: the one named after the path segment before `:id`, else the only one. */
export function notFoundCode(url: string | undefined, meta: RouteMeta | undefined): ErrorCode {
  const list = (meta?.errors ?? []).filter((c) => c.endsWith('_NOT_FOUND'));
  if (list.length <= 1) return list[0] ?? 'NOT_FOUND';
  const segment = (url ?? '').split('/:')[0].split('/').pop() ?? '';
  const stem = segment.toUpperCase().replace(/-/g, '_').replace(/S$/, '');
  return list.find((c) => c.includes(stem)) ?? list[0];
}

/**
 * Path ids holding NUL or anything outside the id alphabet name nothing: answer the route's not-found before
 * validation or SQL sees them (PostgreSQL refuses U+0000 in text). Runs after authentication.
 */
export async function checkPathIds(request: FastifyRequest): Promise<void> {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if ((name === 'id' || name.endsWith('Id')) && typeof value === 'string' && !ID_CHARS.test(value)) {
      throw new ApiError(notFoundCode(request.routeOptions.url, request.routeOptions.config?.meta));
    }
  }
}

/**
 * onRoute hook: a GET operation that declares no query parameters gets an empty strict querystring schema, so
 * `GET /v1/orders/{id}?x=1` is refused like an unknown list filter. New routes inherit it.
 */
export function strictQueryOnRoute(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((m) => m === 'GET' || m === 'HEAD')) return;
  if (!(route.config as { meta?: RouteMeta } | undefined)?.meta) return;
  if (route.schema?.querystring) return;
  route.schema = { ...(route.schema ?? {}), querystring: EmptyQuery };
}
