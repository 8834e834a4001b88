import type { Module } from '../deps';
import { ApiError, validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import { receiveTossWebhook, registerTossWebhookJob } from './webhook';
import { receivePortOneWebhook, WEBHOOK_DELIVERY_RETENTION_MS } from './portone';
import { pruneWebhookDeliveries } from './repo';

type Params = { Params: { storeId: string; mode: string } };

/**
 * Payment gateways calling us. `POST /gateway/toss/webhook/{storeId}/{mode}` is the URL a store registers in Toss's
 * developer center (shown as `settings.<mode>.tossWebhookUrl`). Public: Toss signs none of these events, so the body
 * is only a hint of which payment to read back from Toss's API (see src/gateway/sync.ts). Answers 200 at once (the
 * work is a job); Toss retries anything else up to 7 times over 3 days. Not part of the API documents.
 */
/* No rate limit answers these: a 429 would refuse Toss's real notifications along with a flood of forged ones. Instead
 * acceptance is bounded: a notice naming no payment of the store writes nothing, notices about one of ours coalesce into
 * one pending lookup, each store and mode's lookups are a lane of the queue that takes turns with the others, and the
 * Toss lookups are budgeted per store and mode (TOSS_LOOKUPS_PER_MINUTE, src/gateway/webhook.ts). */

const gatewayModule: Module = async (app, deps) => {
  registerTossWebhookJob(deps);
  deps.worker.addTask({ name: 'gateway.webhook-deliveries.prune', intervalMs: 3_600_000, run: (now) => pruneWebhookDeliveries(deps.db, new Date(now.getTime() - WEBHOOK_DELIVERY_RETENTION_MS)) });
  app.post<Params>('/gateway/toss/webhook/:storeId/:mode', { schema: { hide: true } }, async (req, reply) => {
    const r = await receiveTossWebhook(deps, req.params.storeId, req.params.mode, req.body);
    if (r.status === 'not_found') throw new ApiError('NOT_FOUND');
    if (r.status === 'invalid') throw validationError([{ field: 'eventType', message: MESSAGES.validation.required }]);
    return reply.code(200).send({ received: true });
  });
  // PortOne signs its deliveries over the raw bytes: this route (its own scope) keeps the body as the string received.
  await app.register(async (raw) => {
    raw.removeContentTypeParser('application/json');
    raw.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
    raw.post<Params>('/gateway/portone/webhook/:storeId/:mode', { schema: { hide: true } }, async (req, reply) => {
      const body = typeof req.body === 'string' ? req.body : '';
      const r = await receivePortOneWebhook(deps, req.params.storeId, req.params.mode, body, req.headers);
      if (r.status === 'not_found') throw new ApiError('NOT_FOUND');
      if (r.status === 'invalid') throw validationError([{ field: 'webhook-signature', message: MESSAGES.webhooks.gatewaySignatureInvalid }]);
      return reply.code(200).send({ received: true });
    });
  });
};

export default gatewayModule;
