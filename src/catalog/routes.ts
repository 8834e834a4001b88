import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the catalog module's issue.
const catalogModule: Module = async (app) => {
  app.get('/v1/products', op({ operationId: 'listProducts', summary: 'List products', tags: ['Products'] }, { auth: 'api_key', scope: 'products:read', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/products/:id', op({ operationId: 'getProduct', summary: 'Read a product', tags: ['Products'] }, { auth: 'api_key', scope: 'products:read', errors: ['PRODUCT_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default catalogModule;
