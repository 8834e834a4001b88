import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { CheckoutSessionSchema, CreateCheckoutSessionBody, IssueCashReceiptBody } from './schemas';
import { issueSellerCashReceipt } from './seller-cash-receipt';
import { CREATE_SESSION_CHECKS, createSession, getSession } from './service';
import { registerReconcileJob } from './reconcile';
import { simulateDeposit } from './virtual-account';
import { OrderSchema } from '../orders/schemas';
import { loadOrderView } from '../orders/service';
import { answerStored, claimingWrite, JSON_UTF8 } from '../platform/http/idempotency';

const checksDoc = CREATE_SESSION_CHECKS.map(([code, when], i) => `${i + 1}. \`${code}\`: ${when}`).join('\n');

const checkoutModule: Module = async (app, deps) => {
  registerReconcileJob(deps);

  const createOp = op(
    {
      operationId: 'createCheckoutSession',
      summary: 'Create a checkout session',
      description:
        'Creates a one-time payment session for a product and returns the payment page `url` to send the buyer to. ' +
        'The session is `open` for 30 minutes. Subscription products need `planId` and `interval` together; one-time products take neither.\n\n' +
        'After payment the buyer is redirected (303) to `successUrl` with `order_id` and `session_id` added to its query string. ' +
        'Confirm the payment by reading the order or receiving `order.paid`, never by the redirect alone.\n\n' +
        `Checks, in this order (the first failing one answers):\n${checksDoc}`,
      tags: ['Checkout'],
    },
    {
      auth: 'api_key',
      scope: 'checkout:write',
      idempotent: true,
      errors: [
        'PRODUCT_NOT_FOUND',
        'PRODUCT_ARCHIVED',
        'NOT_STARTED',
        'ENDED',
        'SOLD_OUT',
        'CHECKOUT_URL_INVALID',
        'RETURN_URL_NOT_ALLOWED',
        'METADATA_INVALID',
        'PUBLIC_CONTACT_VERIFICATION_REQUIRED',
        'CHECKOUT_NOT_CONFIGURED',
      ],
    },
    { body: CreateCheckoutSessionBody, response: { 200: CheckoutSessionSchema } },
  );
  app.post(
    '/v1/checkout/sessions',
    // The Idempotency-Key is claimed by the statement that writes the session: one round trip for the whole write.
    { ...createOp, config: { ...createOp.config, claimInWrite: true } },
    async (req, reply) => {
      const created = await claimingWrite(req, reply, (slot) => createSession(deps, req.auth!, req.body, slot));
      if (!created) return reply; // replayed
      const { body } = created;
      answerStored(req);
      // Already serialized (and stored as the idempotent answer): Fastify sends a string as it is.
      return reply.type(JSON_UTF8).send(body as never);
    },
  );

  app.get(
    '/v1/checkout/sessions/:id',
    op(
      {
        operationId: 'getCheckoutSession',
        summary: 'Read a checkout session',
        description: '`status` is computed when read: an open session is `expired` from `expiresAt` on.',
        tags: ['Checkout'],
      },
      { auth: 'api_key', scope: 'checkout:read', errors: ['CHECKOUT_SESSION_NOT_FOUND'] },
      { params: IdParams, response: { 200: CheckoutSessionSchema } },
    ),
    async (req) => getSession(deps, req.auth!, req.params.id),
  );

  // Test mode's stand-in for the buyer's bank: the deposit to a 가상계좌 arrives (src/checkout/virtual-account.ts).
  app.post(
    '/admin/v1/orders/:id/test-deposit',
    op(
      {
        operationId: 'adminTestDeposit',
        summary: 'Test mode: make the deposit to a 가상계좌 order arrive',
        description:
          'For a test-mode order in `awaiting_deposit`: the simulator receives the deposit and the order is then recorded the way a live deposit is ' +
          '(the notification\'s secret checked, the gateway asked): `paid`, licenses issued, `order.paid` written. Repeating it changes nothing. ' +
          'Live orders and other stores\' orders answer `ORDER_NOT_FOUND`; a store whose test mode uses Toss\'s test keys answers `VALIDATION_FAILED` ' +
          '(deposit from Toss\'s own test tools instead).',
        tags: ['Orders'],
      },
      { auth: 'owner', errors: ['ORDER_NOT_FOUND', 'VALIDATION_FAILED'] },
      { params: IdParams, response: { 200: OrderSchema } },
    ),
    async (req) => {
      await simulateDeposit(deps, req.owner!.storeId, req.params.id);
      return (await loadOrderView(deps.db, req.params.id, deps))!;
    },
  );

  // The seller issues a 현금영수증 afterwards (src/checkout/seller-cash-receipt.ts).
  app.post(
    '/admin/v1/orders/:id/cash-receipt',
    op(
      {
        operationId: 'adminIssueCashReceipt',
        summary: 'Issue a 현금영수증 afterwards for a paid 계좌이체 / 가상계좌 order',
        description:
          'For a paid `transfer` or `virtual_account` order that has no 현금영수증 (the buyer chose none, or asks later): issues one through the order\'s gateway ' +
          '(Toss: `POST /v1/cash-receipts`, https://docs.tosspayments.com/reference#현금영수증-발급-요청; test mode: a simulated receipt, issue number `T` + 8 digits) ' +
          'for what is not refunded, and answers the Order with `cashReceipt.requestedBy` = `seller`. ' +
          'Safe to repeat: the intent is recorded before the gateway is called and every retry sends the same Idempotency-Key, so a double click or a retry after a lost answer issues once. ' +
          'Later refunds reduce it (partial) or cancel it (full) through the gateway\'s cash-receipt cancel. ' +
          'On an order whose 현금영수증 the gateway refused (`cashReceipt.status` `failed`, announced by `cash_receipt.failed`), this issues it by hand with the number given, under a new key; `requestedBy` stays what it was (`buyer`, `mandatory`). ' +
          '`CASH_RECEIPT_EXISTS`: the order has one already (with the payment, or issued before); `CASH_RECEIPT_NOT_ALLOWED`: not a paid transfer / virtual-account order, or nothing left after refunds; ' +
          '`PG_CASH_RECEIPT_FAILED`: the gateway refused (`details.gatewayCode`, `details.gatewayMessage`): a first seller issue is not kept, a refused receipt the order owes stays `failed`; `PG_CASH_RECEIPT_AMBIGUOUS`: no answer yet, send the same request again.',
        tags: ['Orders'],
      },
      { auth: 'owner', errors: ['ORDER_NOT_FOUND', 'VALIDATION_FAILED', 'CASH_RECEIPT_EXISTS', 'CASH_RECEIPT_TAX_INVOICE_EXISTS', 'CASH_RECEIPT_NOT_ALLOWED', 'PG_CASH_RECEIPT_FAILED', 'PG_CASH_RECEIPT_AMBIGUOUS'] },
      { params: IdParams, body: IssueCashReceiptBody, response: { 200: OrderSchema } },
    ),
    async (req) => issueSellerCashReceipt(deps, req.owner!.storeId, req.body.mode, req.params.id, { type: req.body.type, customerIdentityNumber: req.body.customerIdentityNumber }),
  );
};

export default checkoutModule;
