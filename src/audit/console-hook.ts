import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps';
import { recordAudit } from './service';

/**
 * The console API (/admin/v1, owner token) writes its own audit entries from one onResponse hook: every successful
 * call that is not a read is recorded as `console.<METHOD> <route>` with actor `owner_token`. It runs after the
 * answer was sent (it costs the caller nothing), so the entry follows the change rather than sharing its transaction;
 * a failure to record is logged, never turned into an error for a call that already succeeded.
 */
export function consoleAuditHook(deps: Pick<AppDeps, 'db' | 'clock'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    if (reply.statusCode >= 400 || !request.owner) return;
    if (request.routeOptions.config?.meta?.auth !== 'owner') return;
    const route = request.routeOptions.url ?? request.url;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const id = typeof params.id === 'string' ? params.id : null;
    // The target type is the collection the id sits under: /admin/v1/api-keys/:id/rotate → api-keys.
    const segments = route.split('/').filter(Boolean);
    const idIndex = segments.indexOf(':id');
    const targetType = idIndex > 0 ? segments[idIndex - 1] : null;
    try {
      await recordAudit(deps.db, deps.clock, {
        storeId: request.owner.storeId,
        mode: body.mode === 'live' || body.mode === 'test' ? body.mode : null,
        actor: { kind: 'owner_token', id: null, name: null },
        action: `console.${request.method} ${route}`,
        target: id && targetType ? { type: targetType, id } : null,
        details: { status: reply.statusCode, requestId: request.id },
        origin: { ip: request.ip, userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null },
      });
    } catch (err) {
      request.log.error({ err, route }, 'console audit entry not recorded');
    }
  };
}
