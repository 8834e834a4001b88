import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams, PageQuery } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { OrderPage, OrderSchema } from './schemas';
import * as svc from './service';

const ordersModule: Module = async (app, deps) => {
  app.get(
    '/v1/orders',
    op(
      {
        operationId: 'listOrders',
        summary: 'List orders',
        description: 'Orders of the key\'s mode, newest first by creation time. A key limited to certain products sees only their orders.',
        tags: ['Orders'],
      },
      { auth: 'api_key', scope: 'orders:read', errors: [] },
      { querystring: PageQuery(), response: { 200: OrderPage } },
    ),
    async (req) => svc.listOrders(deps, req.auth!, pageParams(req.query)),
  );

  app.get(
    '/v1/orders/:id',
    op(
      {
        operationId: 'getOrder',
        summary: 'Read an order',
        description:
          'Every field of the Order, `null` when empty. `refunds` lists completed refunds (`[]` until one exists) and `refundedAmount` is `null` until then. ' +
          'Confirm a payment by reading the order (or the `order.paid` event), never by the success redirect alone.',
        tags: ['Orders'],
      },
      { auth: 'api_key', scope: 'orders:read', errors: ['ORDER_NOT_FOUND'] },
      { params: IdParams, response: { 200: OrderSchema } },
    ),
    async (req) => svc.getOrder(deps, req.auth!, req.params.id),
  );
};

export default ordersModule;
