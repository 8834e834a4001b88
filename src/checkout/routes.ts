import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the checkout module's issue.
const checkoutModule: Module = async (app) => {
  app.post('/v1/checkout/sessions', op({ operationId: 'createCheckoutSession', summary: 'Create a checkout session', tags: ['Checkout'] }, { auth: 'api_key', scope: 'checkout:write', idempotent: true, errors: ['PRODUCT_NOT_FOUND', 'PRODUCT_ARCHIVED', 'NOT_STARTED', 'ENDED', 'SOLD_OUT', 'CHECKOUT_URL_INVALID', 'RETURN_URL_NOT_ALLOWED', 'METADATA_INVALID', 'PUBLIC_CONTACT_VERIFICATION_REQUIRED', 'CHECKOUT_NOT_CONFIGURED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/checkout/sessions/:id', op({ operationId: 'getCheckoutSession', summary: 'Read a checkout session', tags: ['Checkout'] }, { auth: 'api_key', scope: 'checkout:read', errors: ['CHECKOUT_SESSION_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default checkoutModule;
