import type { Module } from '../../deps';
import { op } from '../../platform/http/route';
import { notImplemented, PendingBody } from '../../platform/http/not-implemented';

// Placeholder routes for refund requests: documented now, implemented next (issue 9).
const refundRequestsModule: Module = async (app) => {
  app.get('/v1/refund-requests', op({ operationId: 'listRefundRequests', summary: 'List refund requests', tags: ['Refund requests'] }, { auth: 'api_key', scope: 'refunds:read', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/refund-requests/:id', op({ operationId: 'getRefundRequest', summary: 'Read a refund request', tags: ['Refund requests'] }, { auth: 'api_key', scope: 'refunds:read', errors: ['REFUND_REQUEST_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/refund-requests/:id/approve', op({ operationId: 'approveRefundRequest', summary: 'Approve a refund request', tags: ['Refund requests'] }, { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: ['ORDER_NOT_FOUND', 'REFUND_REQUEST_NOT_FOUND', 'REFUND_AMOUNT_EXCEEDS', 'REFUND_AMOUNT_INVALID', 'REFUND_EXCEEDS', 'REFUND_AMOUNT_MISMATCH', 'SUBSCRIPTION_REFUND_AMOUNT_INVALID', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_SETTLED', 'REFUND_STATUTORY_LOCKED', 'SUBSCRIPTION_REFUND_NONE_LEFT', 'SUBSCRIPTION_REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/refund-requests/:id/hold', op({ operationId: 'holdRefundRequest', summary: 'Hold a refund request', tags: ['Refund requests'] }, { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: ['REFUND_REASON_REQUIRED', 'REFUND_REQUEST_NOT_FOUND', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_STATUTORY_LOCKED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/refund-requests/:id/reject', op({ operationId: 'rejectRefundRequest', summary: 'Reject a refund request', tags: ['Refund requests'] }, { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: ['REFUND_REASON_REQUIRED', 'REFUND_REQUEST_NOT_FOUND', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_STATUTORY_LOCKED'] }, { response: { 200: PendingBody } }), notImplemented);
};

export default refundRequestsModule;
