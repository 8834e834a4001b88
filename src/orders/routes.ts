import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the orders module's issue.
const ordersModule: Module = async (app) => {
  app.get('/v1/orders', op({ operationId: 'listOrders', summary: 'List orders', tags: ['Orders'] }, { auth: 'api_key', scope: 'orders:read', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/orders/:id', op({ operationId: 'getOrder', summary: 'Read an order', tags: ['Orders'] }, { auth: 'api_key', scope: 'orders:read', errors: ['ORDER_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default ordersModule;
