import type { Module } from '../deps';
import { ApiError, validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import { consume, createLimiter } from '../platform/http/rate-limit';
import { receiveTossWebhook, registerTossWebhookJob } from './webhook';

type Params = { Params: { storeId: string; mode: string } };

/**
 * Payment gateways calling us. `POST /gateway/toss/webhook/{storeId}/{mode}` is the URL a store registers in Toss's
 * developer center (shown as `settings.<mode>.tossWebhookUrl`). Public: Toss signs none of these events, so the body
 * is only a hint of which payment to read back from Toss's API (see src/gateway/sync.ts). Answers 200 at once (the
 * work is a job); Toss retries anything else up to 7 times over 3 days. Not part of the API documents.
 */
/** Webhooks one store and mode accepts per minute. Each costs a Toss lookup with the store's keys, so a flood of forged
 * bodies must not spend the store's Toss quota; Toss itself retries a refused webhook (1, 4, 16 … minutes later). */
export const TOSS_WEBHOOKS_PER_MINUTE = 600;

const gatewayModule: Module = async (app, deps) => {
  registerTossWebhookJob(deps);
  const perStore = createLimiter({ redis: deps.redis, keyPrefix: 'rl_toss_webhook', points: TOSS_WEBHOOKS_PER_MINUTE, durationSec: 60 });
  app.post<Params>('/gateway/toss/webhook/:storeId/:mode', { schema: { hide: true } }, async (req, reply) => {
    const limit = await consume(perStore, `${req.params.storeId}:${req.params.mode}`);
    if (!limit.allowed) throw new ApiError('RATE_LIMITED', { headers: { 'Retry-After': String(limit.resetSec) } });
    const r = await receiveTossWebhook(deps, req.params.storeId, req.params.mode, req.body);
    if (r.status === 'not_found') throw new ApiError('NOT_FOUND');
    if (r.status === 'invalid') throw validationError([{ field: 'eventType', message: MESSAGES.validation.required }]);
    return reply.code(200).send({ received: true });
  });
};

export default gatewayModule;
