import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import {
  AdminRefundOrderBody,
  AdminRefundsQuery,
  ConsoleIdempotencyHeaders,
  ResolveRefundBody,
  RefundSchema,
  CreateSettlementBody,
  RefundOrderBody,
  RefundOrderResult,
  RefundPage,
  SettlementListQuery,
  SettlementPage,
  SettlementWithOrdersSchema,
} from './schemas';
import { refundOrder } from './service';
import { validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';

function consoleKey(raw: string | string[] | undefined): string {
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (key.length < 1 || key.length > 255) throw validationError([{ field: 'Idempotency-Key', message: MESSAGES.http.idempotencyKeyRequired }]);
  return key;
}
import { listRefunds, resolveRefund } from './console';
import { registerRefundJobs } from './reconcile';
import { createRoundFromConsole, getRound, listRounds, registerSettlementTask } from './settlement';

const SETTLEMENT_DOC =
  'A settlement round closes the store\'s paid orders of one mode into a payout record: `gross` (what they took), `refunds` (what was refunded of them), ' +
  '`fees` (3.3 % of what each order kept, rounded down per order) and `net` = gross − refunds − fees. Only orders whose withdrawal window ' +
  '(max(7 days, the product\'s refundDays), ending 24:00 KST, rolled to a business day) has ended are settled, so a buyer\'s statutory withdrawal is never blocked; ' +
  'orders with a refund in flight or an undecided refund request wait for the next round. An order in a round answers REFUND_SETTLED to refunds. ' +
  'Rounds are made weekly by the service (each KST week, of orders paid before its Monday 00:00 KST; SETTLEMENT_SCHEDULE=off disables it) and on demand here.';

const REFUND_DOC =
  'Refunds all or part of a paid order through its payment gateway. Body fields are all optional: `{}` refunds everything still refundable.\n\n' +
  'Checks, in this order (the first that fails answers): ORDER_NOT_FOUND (absent, other mode, or outside the key\'s products) → ' +
  'REFUND_AMOUNT_INVALID (amount ≤ 0) → REFUND_NOT_PAID (status is not `paid`; a fully refunded order is `refunded`) → ' +
  'REFUND_SETTLED (the order is in a settlement round) → REFUND_REQUEST_PENDING (a buyer\'s refund request is requested or held: decide it instead) → ' +
  'REFUND_IN_PROGRESS (another refund of the order is `pending` or `unknown`) → REFUND_NONE_LEFT → REFUND_EXCEEDS. ' +
  'Then the refund is recorded `pending` and the gateway is asked: PG_REFUND_FAILED (502) when it refuses (`details.refundId`, `details.gatewayCode`; nothing moved, ' +
  'you may try again with a new Idempotency-Key), PG_REFUND_AMBIGUOUS (502) when it does not answer in time (`details.refundId`; the refund may have happened: ' +
  'do not retry with a new key, the service looks the payment up and settles it, and sends `order.refunded` if it went through). ' +
  'A retry with the SAME Idempotency-Key never refunds again: it answers that refund\'s current state (200 once it succeeded, the same 502 until then).\n\n' +
  'On success the order\'s `refundedAmount`, `refundedAt` and `refunds` grow, it stays `paid` while something is left and becomes `refunded` when nothing is; ' +
  'a refund that leaves nothing revokes the order\'s licenses unless `keepLicenses` is true; an `order.refunded` event is sent. ' +
  'Stock and coupon uses are not given back (see the README, "Refunds").\n\n' +
  'A subscription\'s order paying for the current period: a refund that leaves it refunded in full ends the subscription at once ' +
  '(`subscription.ended`): inside the order\'s withdrawal window it is a withdrawal (청약철회, `endReason: withdrawn`), after it `endReason: refunded`; ' +
  'nothing is charged on it again (no renewal, retry or plan change). A partial refund leaves the subscription running. ' +
  'An upgrade\'s difference order (`subscriptionEvent: difference`) of the current period refunded in full (inside its window a withdrawal of the upgrade, after it the seller\'s choice) voids that upgrade only: ' +
  'the subscription returns to the plan, interval, renewal price and terms it had just before it (`subscription.updated`, `change.kind: plan_change_withdrawn`) and keeps running on the base order; the next renewal charges the earlier price.';

const refundsModule: Module = async (app, deps) => {
  registerRefundJobs(deps);
  if (deps.config.settlementSchedule === 'weekly') registerSettlementTask(deps);

  const refundOp = op(
    { operationId: 'refundOrder', summary: 'Refund an order', description: REFUND_DOC, tags: ['Refunds'] },
    {
      auth: 'api_key',
      scope: 'refunds:write',
      idempotent: true,
      errors: ['ORDER_NOT_FOUND', 'REFUND_AMOUNT_INVALID', 'REFUND_EXCEEDS', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'REFUND_ACCOUNT_REQUIRED', 'REFUND_PARTIAL_NOT_ALLOWED', 'REFUND_REQUEST_PENDING', 'REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED'],
    },
    { params: IdParams, body: RefundOrderBody, response: { 200: RefundOrderResult } },
  );
  app.post(
    '/v1/orders/:id/refund',
    {
      ...refundOp,
      // Every body field is optional, so a POST without a body means `{}` (refund everything), as with Stripe.
      preValidation: [
        refundOp.preValidation,
        async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      ],
    },
    async (req) =>
      refundOrder(deps, {
        storeId: req.auth!.storeId,
        mode: req.auth!.mode,
        orderId: req.params.id,
        productIds: req.auth!.productIds,
        amount: req.body.amount,
        reason: req.body.reason ?? null,
        keepLicenses: req.body.keepLicenses ?? false,
        source: 'api',
        requestKey: req.idempotency?.key ?? null,
      }),
  );

  // ---------- seller console ----------
  app.post(
    '/admin/v1/orders/:id/refund',
    op(
      {
        operationId: 'adminRefundOrder',
        summary: 'Refund an order from the seller console',
        description:
          'The same refund as `POST /v1/orders/{id}/refund` (same body plus `mode`, same checks, states and errors; `source` = `console`, no product range). ' +
          '`Idempotency-Key` is required here too: a second request with the same key never refunds again and answers that refund\'s current state.',
        tags: ['Refunds'],
      },
      {
        auth: 'owner',
        errors: ['ORDER_NOT_FOUND', 'REFUND_AMOUNT_INVALID', 'REFUND_EXCEEDS', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_NOT_PAID', 'REFUND_ACCOUNT_REQUIRED', 'REFUND_PARTIAL_NOT_ALLOWED', 'REFUND_REQUEST_PENDING', 'REFUND_SETTLED', 'PG_REFUND_AMBIGUOUS', 'PG_REFUND_FAILED', 'IDEMPOTENCY_KEY_CONFLICT'],
      },
      { params: IdParams, headers: ConsoleIdempotencyHeaders, body: AdminRefundOrderBody, response: { 200: RefundOrderResult } },
    ),
    async (req) =>
      refundOrder(deps, {
        storeId: req.owner!.storeId,
        mode: req.body.mode,
        orderId: req.params.id,
        productIds: null,
        amount: req.body.amount,
        reason: req.body.reason ?? null,
        keepLicenses: req.body.keepLicenses ?? false,
        source: 'console',
        // Its own namespace, so a console key never meets an API key of the same text.
        requestKey: `console:${consoleKey(req.headers['idempotency-key'])}`,
      }),
  );
  app.get(
    '/admin/v1/refunds',
    op(
      {
        operationId: 'adminListRefunds',
        summary: 'List the store\'s refunds, newest first',
        description: 'Every refund record of the store (all states), filtered by `mode`, `orderId` and `status`. `failure` explains failed refunds and unknown ones that need a look at the gateway.',
        tags: ['Refunds'],
      },
      { auth: 'owner' },
      { querystring: AdminRefundsQuery, response: { 200: RefundPage } },
    ),
    async (req) => listRefunds(deps, req.owner!.storeId, { ...pageParams(req.query), mode: req.query.mode, orderId: req.query.orderId, status: req.query.status }),
  );
  app.post(
    '/admin/v1/refunds/:id/resolve',
    op(
      {
        operationId: 'adminResolveRefund',
        summary: 'Settle an unknown refund by hand',
        description:
          'For an `unknown` refund reconciliation cannot decide (e.g. `failure.code` RECONCILE_MISMATCH after a cancel made in the gateway\'s dashboard): ' +
          'after checking the gateway, `succeeded` records it (the order\'s refundedAmount grows, licenses are revoked on a full refund, `order.refunded` is sent) ' +
          'and `failed` releases the order for another refund. Only `unknown` refunds (REFUND_NOT_UNKNOWN otherwise).',
        tags: ['Refunds'],
      },
      { auth: 'owner', errors: ['REFUND_NOT_FOUND', 'REFUND_NOT_UNKNOWN'] },
      { params: IdParams, body: ResolveRefundBody, response: { 200: RefundSchema } },
    ),
    async (req) => resolveRefund(deps, req.owner!.storeId, req.params.id, req.body),
  );

  const stlTags = ['Settlement'];
  app.post(
    '/admin/v1/settlements',
    op(
      { operationId: 'adminCreateSettlement', summary: 'Settle now: close a round of the orders that qualify', description: SETTLEMENT_DOC, tags: stlTags },
      { auth: 'owner', errors: ['SETTLEMENT_EMPTY'] },
      { body: CreateSettlementBody, response: { 201: SettlementWithOrdersSchema } },
    ),
    async (req, reply) => {
      const round = await createRoundFromConsole(deps, req.owner!.storeId, { mode: req.body.mode, cutoff: req.body.cutoff ? new Date(req.body.cutoff) : undefined });
      reply.code(201);
      return round;
    },
  );
  app.get(
    '/admin/v1/settlements',
    op(
      { operationId: 'adminListSettlements', summary: 'List settlement rounds, newest first', description: SETTLEMENT_DOC, tags: stlTags },
      { auth: 'owner' },
      { querystring: SettlementListQuery, response: { 200: SettlementPage } },
    ),
    async (req) => listRounds(deps, req.owner!.storeId, { ...pageParams(req.query), mode: req.query.mode }),
  );
  app.get(
    '/admin/v1/settlements/:id',
    op(
      { operationId: 'adminGetSettlement', summary: 'Read a settlement round with its orders', tags: stlTags },
      { auth: 'owner', errors: ['SETTLEMENT_NOT_FOUND'] },
      { params: IdParams, response: { 200: SettlementWithOrdersSchema } },
    ),
    async (req) => getRound(deps, req.owner!.storeId, req.params.id),
  );
};

export default refundsModule;
