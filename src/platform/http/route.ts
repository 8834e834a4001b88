import type { FastifySchema } from 'fastify';
import { ERROR_CATALOG, type ErrorCode } from '../errors';
import { ApiErrorSchema } from './schemas';

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

/** Codes every route of a given kind can answer, added to what the route lists itself. */
export function platformErrors(meta: RouteMeta): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_FAILED', 'INTERNAL_ERROR'];
  if (meta.auth === 'api_key') codes.push('API_KEY_INVALID', 'API_KEY_IP_NOT_ALLOWED', 'RATE_LIMITED');
  if (meta.auth === 'api_key' && meta.scope) codes.push('API_KEY_SCOPE_MISSING');
  if (meta.auth === 'owner' || meta.auth === 'operator') codes.push('ADMIN_UNAUTHORIZED');
  if (meta.idempotent) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_CONFLICT');
  return codes;
}

export function allErrors(meta: RouteMeta): ErrorCode[] {
  return [...new Set([...(meta.errors ?? []), ...platformErrors(meta)])];
}

/**
 * Builds a route's `schema` and `config` from its documentation, meta and TypeBox schemas:
 *   app.post('/v1/x', op({ operationId, summary, tags }, { auth: 'api_key', scope, idempotent: true, errors }, { body, response: { 200: X } }), handler)
 * Error responses (ApiError, grouped by status with their codes) are added to the schema, so they are both
 * serialized and documented. The TypeBox type of `schema` is kept, so handlers are typed from it.
 */
export function op<S extends FastifySchema>(doc: OpDoc, meta: RouteMeta, schema: S): { schema: S; config: { meta: RouteMeta } } {
  const codes = allErrors(meta);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) {
    const s = ERROR_CATALOG[c].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), c]);
  }
  const response: Record<string, unknown> = { ...((schema as any).response ?? {}) };
  for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    response[String(status)] = { ...ApiErrorSchema, description: list.join(', ') };
  }
  const security =
    meta.auth === 'api_key' ? [{ apiKey: [] }] : meta.auth === 'owner' ? [{ ownerToken: [] }] : meta.auth === 'operator' ? [{ operatorToken: [] }] : [];
  const descParts = [doc.description ?? ''];
  if (meta.scope) descParts.push(`Required scope: \`${meta.scope}\`.`);
  if (meta.idempotent) descParts.push('Requires an `Idempotency-Key` header (1 to 255 characters after trimming).');
  descParts.push(`Error codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`);
  const full = {
    ...schema,
    operationId: doc.operationId,
    summary: doc.summary,
    description: descParts.filter(Boolean).join('\n\n'),
    tags: doc.tags,
    security,
    response,
    'x-required-scope': meta.scope ?? null,
    'x-idempotent': meta.idempotent ?? false,
    'x-error-codes': codes,
  } as unknown as S;
  return { schema: full, config: { meta } };
}
