import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { SubscriptionListQuery, SubscriptionPage, SubscriptionSchema } from './schemas';
import * as subs from './service';
import { registerCancelRoutes } from './cancel/routes';

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
  await registerCancelRoutes(app, deps);
};

export default subscriptionsModule;
