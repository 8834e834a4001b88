import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the subscriptions module's issue.
const subscriptionsModule: Module = async (app) => {
  app.get('/v1/subscriptions', op({ operationId: 'listSubscriptions', summary: 'List subscriptions', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:read', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/subscriptions/:id', op({ operationId: 'getSubscription', summary: 'Read a subscription', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:read', errors: ['SUBSCRIPTION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/subscriptions/:id/cancel', op({ operationId: 'cancelSubscription', summary: 'Cancel a subscription', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:write', idempotent: true, errors: ['SUBSCRIPTION_NOT_FOUND', 'ORDER_NOT_FOUND', 'ALREADY_CANCELED', 'ALREADY_ENDED', 'REFUND_IN_PROGRESS', 'REFUND_REQUEST_PENDING', 'SUBSCRIPTION_REFUND_NONE_LEFT', 'SUBSCRIPTION_REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/subscriptions/:id/cancel-preview', op({ operationId: 'previewSubscriptionCancel', summary: 'Preview a cancellation', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:read', errors: ['SUBSCRIPTION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/portal-sessions', op({ operationId: 'createPortalSession', summary: 'Create a buyer portal session', tags: ['Subscriptions'] }, { auth: 'api_key', scope: 'subscriptions:write', idempotent: true, errors: ['BAD_REQUEST', 'CHECKOUT_URL_INVALID', 'RETURN_URL_NOT_ALLOWED', 'NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default subscriptionsModule;
