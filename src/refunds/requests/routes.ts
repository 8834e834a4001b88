import type { Module } from '../../deps';
import type { ErrorCode } from '../../platform/errors';
import { op } from '../../platform/http/route';
import { IdParams } from '../../platform/http/schemas';
import { pageParams } from '../../platform/http/pagination';
import { AdminListRefundRequestsQuery, ApproveBody, ApproveResult, DecisionBody, ListRefundRequestsQuery, RefundRequestPage, RefundRequestSchema } from './schemas';
import * as svc from './service';

const tags = ['Refund requests'];

const RANGE = 'A key limited to certain products sees only the requests of their orders; others answer REFUND_REQUEST_NOT_FOUND.';

const DOCS = {
  list:
    'Refund requests of the key\'s mode, newest first by creation time. Filters: `status`, `orderId`. ' +
    'Buyers file requests on the order\'s receipt page (`Order.receiptUrl`); `refund_request.created` and `refund_request.updated` events report them. ' +
    RANGE,
  get: `Every field of the RefundRequest, \`null\` when empty. ${RANGE}`,
  approve:
    'Approves a request by refunding the order (the same refund engine, states and gateway outcomes as `POST /v1/orders/{id}/refund`, with `source: refund_request`). ' +
    'Body fields are all optional: `{}` refunds the amount asked for.\n\n' +
    'Checks, in this order (the first that fails answers): REFUND_REQUEST_NOT_FOUND → REFUND_AMOUNT_INVALID (`amount` ≤ 0) → ' +
    'REFUND_REQUEST_NOT_ACTIONABLE (not `requested`/`held`) → REFUND_IN_PROGRESS (an approval of this request is already being processed) → ' +
    'REFUND_STATUTORY_LOCKED (a statutory request approved for less than asked) → REFUND_AMOUNT_MISMATCH (`amount` differs from the amount asked for and `confirmAmount` is not true) → ' +
    'REFUND_NOT_PAID → REFUND_SETTLED → REFUND_NONE_LEFT → REFUND_AMOUNT_EXCEEDS (`amount` above what is refundable now) → ' +
    'REFUND_EXCEEDS (no `amount`, and the amount asked for is above what is refundable now: something was refunded since the request was filed; approve a smaller `amount` with `confirmAmount`). ' +
    'Then the engine\'s own checks under the order\'s lock (REFUND_IN_PROGRESS when another refund of the order is pending or unknown) and the gateway: ' +
    'PG_REFUND_FAILED (nothing moved; the request stays actionable) or PG_REFUND_AMBIGUOUS (the request stays `requested`/`held` with `processing: true` until ' +
    'reconciliation settles the refund; it then becomes `approved`, or actionable again if the refund failed).\n\n' +
    'For a request that belongs to a subscription (`subscriptionId` set) REFUND_AMOUNT_INVALID, REFUND_NONE_LEFT and REFUND_SETTLED are answered as ' +
    'SUBSCRIPTION_REFUND_AMOUNT_INVALID, SUBSCRIPTION_REFUND_NONE_LEFT and SUBSCRIPTION_REFUND_SETTLED. ' +
    'ORDER_NOT_FOUND is listed by the contract but cannot occur here: a request always names an order of its own store and mode, and a key that may not see that order ' +
    'does not see the request either (REFUND_REQUEST_NOT_FOUND).\n\n' +
    'Answer: the approved request, the refund and the updated order.',
  hold:
    'Holds a request while the seller looks into it (`requested`/`held` → `held`; holding a held request replaces its reason). ' +
    'Checks, in this order: REFUND_REQUEST_NOT_FOUND → REFUND_REASON_REQUIRED (missing or blank `reason`) → ' +
    'REFUND_REQUEST_NOT_ACTIONABLE (not `requested`/`held`, or an approval is being processed) → REFUND_STATUTORY_LOCKED (statutory requests cannot be held: the law gives the seller 3 business days to refund). ' +
    'Answer: the request; a `refund_request.updated` event is sent.',
  reject:
    'Rejects a request (`requested`/`held` → `rejected`, final). Same checks, in the same order, as hold: REFUND_REQUEST_NOT_FOUND → REFUND_REASON_REQUIRED → ' +
    'REFUND_REQUEST_NOT_ACTIONABLE → REFUND_STATUTORY_LOCKED. The buyer sees the reason on the receipt page. Answer: the request; a `refund_request.updated` event is sent.',
};

const APPROVE_ERRORS: ErrorCode[] = [
  'ORDER_NOT_FOUND', 'REFUND_REQUEST_NOT_FOUND', 'REFUND_AMOUNT_EXCEEDS', 'REFUND_AMOUNT_INVALID', 'REFUND_EXCEEDS', 'REFUND_AMOUNT_MISMATCH',
  'SUBSCRIPTION_REFUND_AMOUNT_INVALID', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_SETTLED',
  'REFUND_STATUTORY_LOCKED', 'REFUND_ACCOUNT_REQUIRED', 'REFUND_PARTIAL_NOT_ALLOWED', 'SUBSCRIPTION_REFUND_NONE_LEFT', 'SUBSCRIPTION_REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED',
];
const DECISION_ERRORS: ErrorCode[] = ['REFUND_REASON_REQUIRED', 'REFUND_REQUEST_NOT_FOUND', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_STATUTORY_LOCKED'];

/** Refund requests: the public API (/v1/refund-requests), the seller console, and the statutory auto-approval. */
const refundRequestsModule: Module = async (app, deps) => {
  deps.worker.addTask({ name: 'refund_requests.auto_approve', intervalMs: 60_000, run: (now) => svc.runAutoApprovals(deps, now) });
  deps.worker.addTask({ name: 'refund_requests.follow', intervalMs: 30_000, run: (now) => svc.followApprovals(deps, now) });

  app.get(
    '/v1/refund-requests',
    op({ operationId: 'listRefundRequests', summary: 'List refund requests', description: DOCS.list, tags }, { auth: 'api_key', scope: 'refunds:read', errors: [] }, {
      querystring: ListRefundRequestsQuery,
      response: { 200: RefundRequestPage },
    }),
    async (req) => svc.listRequests(deps, { ...req.auth!, status: req.query.status, orderId: req.query.orderId }, pageParams(req.query)),
  );
  app.get(
    '/v1/refund-requests/:id',
    op({ operationId: 'getRefundRequest', summary: 'Read a refund request', description: DOCS.get, tags }, { auth: 'api_key', scope: 'refunds:read', errors: ['REFUND_REQUEST_NOT_FOUND'] }, {
      params: IdParams,
      response: { 200: RefundRequestSchema },
    }),
    async (req) => svc.getRequest(deps, req.auth!, req.params.id),
  );
  app.post(
    '/v1/refund-requests/:id/approve',
    op(
      { operationId: 'approveRefundRequest', summary: 'Approve a refund request (refunds the order)', description: DOCS.approve, tags },
      { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: APPROVE_ERRORS },
      { params: IdParams, body: ApproveBody, response: { 200: ApproveResult } },
    ),
    async (req) => svc.approveRequest(deps, req.auth!, req.params.id, req.body, 'api'),
  );
  app.post(
    '/v1/refund-requests/:id/hold',
    op(
      { operationId: 'holdRefundRequest', summary: 'Hold a refund request', description: DOCS.hold, tags },
      { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: DECISION_ERRORS },
      { params: IdParams, body: DecisionBody, response: { 200: RefundRequestSchema } },
    ),
    async (req) => svc.holdRequest(deps, req.auth!, req.params.id, req.body.reason, 'api'),
  );
  app.post(
    '/v1/refund-requests/:id/reject',
    op(
      { operationId: 'rejectRefundRequest', summary: 'Reject a refund request', description: DOCS.reject, tags },
      { auth: 'api_key', scope: 'refunds:write', idempotent: true, errors: DECISION_ERRORS },
      { params: IdParams, body: DecisionBody, response: { 200: RefundRequestSchema } },
    ),
    async (req) => svc.rejectRequest(deps, req.auth!, req.params.id, req.body.reason, 'api'),
  );

  // ---------- seller console: the same use cases over the owner token (all products; mode chosen per call) ----------
  const ownerScope = (storeId: string, mode?: 'live' | 'test') => ({ storeId, mode: mode ?? null, productIds: null });
  const consoleNote = ' Seller console: both modes (the list filters by `mode` when given); every product of the store is in range.';
  app.get(
    '/admin/v1/refund-requests',
    op({ operationId: 'adminListRefundRequests', summary: 'List the store\'s refund requests, newest first', description: DOCS.list + consoleNote, tags }, { auth: 'owner' }, {
      querystring: AdminListRefundRequestsQuery,
      response: { 200: RefundRequestPage },
    }),
    async (req) => svc.listRequests(deps, { ...ownerScope(req.owner!.storeId, req.query.mode), status: req.query.status, orderId: req.query.orderId }, pageParams(req.query)),
  );
  app.get(
    '/admin/v1/refund-requests/:id',
    op({ operationId: 'adminGetRefundRequest', summary: 'Read a refund request', description: DOCS.get + consoleNote, tags }, { auth: 'owner', errors: ['REFUND_REQUEST_NOT_FOUND'] }, {
      params: IdParams,
      response: { 200: RefundRequestSchema },
    }),
    async (req) => svc.getRequest(deps, ownerScope(req.owner!.storeId), req.params.id),
  );
  app.post(
    '/admin/v1/refund-requests/:id/approve',
    op({ operationId: 'adminApproveRefundRequest', summary: 'Approve a refund request (refunds the order)', description: DOCS.approve + consoleNote, tags }, { auth: 'owner', errors: APPROVE_ERRORS }, {
      params: IdParams,
      body: ApproveBody,
      response: { 200: ApproveResult },
    }),
    async (req) => svc.approveRequest(deps, ownerScope(req.owner!.storeId), req.params.id, req.body, 'console'),
  );
  app.post(
    '/admin/v1/refund-requests/:id/hold',
    op({ operationId: 'adminHoldRefundRequest', summary: 'Hold a refund request', description: DOCS.hold + consoleNote, tags }, { auth: 'owner', errors: DECISION_ERRORS }, {
      params: IdParams,
      body: DecisionBody,
      response: { 200: RefundRequestSchema },
    }),
    async (req) => svc.holdRequest(deps, ownerScope(req.owner!.storeId), req.params.id, req.body.reason, 'console'),
  );
  app.post(
    '/admin/v1/refund-requests/:id/reject',
    op({ operationId: 'adminRejectRefundRequest', summary: 'Reject a refund request', description: DOCS.reject + consoleNote, tags }, { auth: 'owner', errors: DECISION_ERRORS }, {
      params: IdParams,
      body: DecisionBody,
      response: { 200: RefundRequestSchema },
    }),
    async (req) => svc.rejectRequest(deps, ownerScope(req.owner!.storeId), req.params.id, req.body.reason, 'console'),
  );
};

export default refundRequestsModule;
