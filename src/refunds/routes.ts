import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the refunds module's issue.
const refundsModule: Module = async (app) => {
  app.post('/v1/orders/:id/refund', op({ operationId: 'refundOrder', summary: 'Refund an order', tags: ['Refunds'] }, { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: ['ORDER_NOT_FOUND', 'REFUND_AMOUNT_INVALID', 'REFUND_EXCEEDS', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'REFUND_REQUEST_PENDING', 'REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default refundsModule;
