import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { SubscriptionListQuery, SubscriptionPage, SubscriptionSchema } from './schemas';
import * as subs from './service';

// Placeholder routes: documented now, implemented by the subscriptions module's issue.
const subscriptionsModule: Module = async (app, deps) => {
  app.get(
    '/v1/subscriptions',
    op(
      {
        operationId: 'listSubscriptions',
        summary: 'List subscriptions',
        description:
          'Subscriptions of the key\'s mode, newest first by start time (`startedAt`). Filters (all optional, combined with AND): `status`, `buyerEmail` (exact, case-insensitive), `productId`. ' +
          'A key limited to certain products sees only their subscriptions.',
        tags: ['Subscriptions'],
      },
      { auth: 'api_key', scope: 'subscriptions:read', errors: [] },
      { querystring: SubscriptionListQuery, response: { 200: SubscriptionPage } },
    ),
    async (req) => {
      const { status, buyerEmail, productId } = req.query;
      return subs.listSubscriptions(deps, req.auth!, { status, buyerEmail, productId }, pageParams(req.query));
    },
  );
  app.get(
    '/v1/subscriptions/:id',
    op(
      { operationId: 'getSubscription', summary: 'Read a subscription', description: 'Every field of the Subscription record, `null` when empty. The billing key is never shown.', tags: ['Subscriptions'] },
      { auth: 'api_key', scope: 'subscriptions:read', errors: ['SUBSCRIPTION_NOT_FOUND'] },
      { params: IdParams, response: { 200: SubscriptionSchema } },
    ),
    async (req) => subs.getSubscription(deps, req.auth!, req.params.id),
  );
  app.post('/v1/subscriptions/:id/cancel', op({ operationId: 'cancelSubscription', summary: 'Cancel a subscription', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:write', idempotent: true, errors: ['SUBSCRIPTION_NOT_FOUND', 'ORDER_NOT_FOUND', 'ALREADY_CANCELED', 'ALREADY_ENDED', 'REFUND_IN_PROGRESS', 'REFUND_REQUEST_PENDING', 'SUBSCRIPTION_REFUND_NONE_LEFT', 'SUBSCRIPTION_REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/subscriptions/:id/cancel-preview', op({ operationId: 'previewSubscriptionCancel', summary: 'Preview a cancellation', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:read', errors: ['SUBSCRIPTION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/portal-sessions', op({ operationId: 'createPortalSession', summary: 'Create a buyer portal session', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:write', idempotent: true, errors: ['BAD_REQUEST', 'CHECKOUT_URL_INVALID', 'RETURN_URL_NOT_ALLOWED', 'NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default subscriptionsModule;
