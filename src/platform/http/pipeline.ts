import type { App, AppDeps } from '../../deps';
import { authenticateApiKey, authenticateOperator, authenticateOwner, type ApiKeyRow } from './auth';
import { TtlCache } from '../cache';
import { API_KEY_CHANGED, changeFeed } from '../changes';
import { createLimiter, enforceKeyRateLimit } from './rate-limit';
import { beginIdempotency, deferIdempotency, finishIdempotency } from './idempotency';

/**
 * The request pipeline every operation declared with `op()` goes through, in this order:
 * request id → auth (API key with its rate limit, owner token or operator token) → idempotency → (validation →
 * handler) → the idempotent answer stored on the way out.
 */
export function installRequestPipeline(app: App, deps: Pick<AppDeps, 'config' | 'db' | 'clock' | 'database' | 'redis'>): void {
  const { config, db, clock } = deps;
  // API key rows, cached for a few seconds; rotation and revocation in any process drop the entry everywhere at once.
  const keyCache = new TtlCache<ApiKeyRow>(config.apiKeyCacheMs);
  changeFeed(deps.database).on(API_KEY_CHANGED, (hash) => keyCache.delete(hash));
  const limiter = createLimiter({ redis: deps.redis, keyPrefix: 'rl_api', points: config.rateLimitPerMinute, durationSec: 60 });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
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
}
