import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, StringMap, Won } from '../platform/http/schemas';

export const OrderStatusSchema = Type.Union(
  [Type.Literal('pending'), Type.Literal('awaiting_deposit'), Type.Literal('paid'), Type.Literal('refunded'), Type.Literal('failed'), Type.Literal('canceled'), Type.Literal('expired')],
  {
    description:
      '`pending` (payment not finished), `awaiting_deposit` (a 가상계좌 was issued; the buyer has not deposited yet), `paid` (also while partially refunded), ' +
      '`refunded` (fully refunded), `failed`, `canceled`, `expired` (a 가상계좌 whose due date passed without the deposit)',
  },
);
export const PaymentMethodSchema = Type.Union([Type.Literal('card'), Type.Literal('kakao_pay'), Type.Literal('naver_pay'), Type.Literal('toss'), Type.Literal('transfer'), Type.Literal('virtual_account'),
  // Issue 41: 휴대폰 결제 and 상품권 (one-time payments).
  Type.Literal('mobile_phone'), Type.Literal('culture_gift'), Type.Literal('book_gift'), Type.Literal('game_gift'),
  Type.Literal('foreign_card'), Type.Literal('paypal')], {
  description:
    'Extensions beyond the contract\'s four: `transfer` (계좌이체), `virtual_account` (가상계좌), `mobile_phone` (휴대폰 결제), `culture_gift` / `book_gift` / `game_gift` (문화상품권 / 도서문화상품권 / 게임문화상품권), `foreign_card` (a card issued abroad, Toss\'s 다국어 결제창; charged in won) and ' +
    '`paypal` (PayPal through Toss; charged in US dollars, see `presentment`)',
});

/**
 * Extension: the money that moved at the gateway when it was not won (PayPal: US dollars). `amount` is in the currency's
 * minor unit (cents): 2889 = US$28.89. The order's `amount`/`currency` stay its won price.
 */
export const PresentmentSchema = Obj(
  {
    amount: Type.Integer({ minimum: 0, description: 'Minor units of `currency` (cents): 2889 = US$28.89' }),
    currency: Type.Literal('USD'),
  },
  { title: 'Presentment' },
);
export const IntervalSchema = Type.Union([Type.Literal('monthly'), Type.Literal('yearly')]);

export const OrderCouponSchema = Obj(
  { code: Type.String(), name: Type.String(), discountAmount: Won(), originalAmount: Won(), currency: CurrencySchema },
  { title: 'OrderCoupon' },
);

export const OrderRefundItemSchema = Obj(
  {
    amount: Won(),
    currency: CurrencySchema,
    at: DateTime(),
    reason: Nullable(Type.String()),
    presentment: Type.Optional(Obj({ amount: Type.Integer({ minimum: 0 }), currency: Type.Literal('USD') }, { description: 'Extension, PayPal orders only: what this refund gave back in US dollars (cents)' })),
  },
  { title: 'OrderRefundItem' },
);

export const OrderLicenseSchema = Obj(
  {
    id: Type.String({ description: 'License id (`lic_…`); read it in full with GET /v1/licenses/{id}' }),
    key: Nullable(Type.String({ description: 'The license key to hand to the buyer; null while a seller-issued license is `pending` (the key arrives in your answer to `license.issue`)' })),
    status: Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('expired'), Type.Literal('revoked')], {
      description: '`active`, `pending` (seller-issued, key not yet received), `expired` (past `expiresAt`), `revoked`',
    }),
    expiresAt: Nullable(DateTime('When the license stops working; null: never. Subscription licenses follow the paid period.')),
  },
  { title: 'OrderLicense' },
);
export type OrderLicenseView = Static<typeof OrderLicenseSchema>;

/** Extension: the 가상계좌 of a `virtual_account` order (Toss's Payment.virtualAccount). */
export const OrderVirtualAccountSchema = Obj(
  {
    bankCode: Type.String({ description: "Toss's bank code (https://docs.tosspayments.com/codes/org-codes#은행-코드)" }),
    bankName: Type.String({ description: 'The bank, in Korean (e.g. 신한)' }),
    accountNumber: Type.String({ description: 'The account the buyer deposits to' }),
    holderName: Type.String({ description: '예금주 shown for the account' }),
    dueAt: DateTime('Deposit deadline; the order expires after it'),
    depositedAt: Nullable(DateTime('When the deposit was confirmed')),
    refundAccountSet: Type.Boolean({ description: 'Whether the buyer has given the account refunds go to (needed before any refund after the deposit)' }),
  },
  { title: 'OrderVirtualAccount' },
);
export type OrderVirtualAccountView = Static<typeof OrderVirtualAccountSchema>;

/** Extension: the 현금영수증 of a 계좌이체 / 가상계좌 order (Toss's Payment.cashReceipt). */
export const OrderCashReceiptSchema = Obj(
  {
    type: Type.Union([Type.Literal('소득공제'), Type.Literal('지출증빙')], { description: "Toss's CashReceipt.type: 소득공제 (a person) or 지출증빙 (a business)" }),
    status: Type.Union([Type.Literal('requested'), Type.Literal('issued'), Type.Literal('partially_canceled'), Type.Literal('canceled'), Type.Literal('failed')], {
      description:
        '`requested` (being issued through the gateway: a transfer right after the payment, a 가상계좌 after its deposit), `issued` (the gateway answered with its receipt), ' +
        '`partially_canceled` (reduced by a partial refund), `canceled` (refunded in full), `failed` (the gateway refused it: `failure` says why; ' +
        'the seller retries it or issues it by hand with another number, and `cash_receipt.failed` was sent)',
    }),
    requestedBy: Type.Union([Type.Literal('buyer'), Type.Literal('mandatory'), Type.Literal('seller')], {
      description:
        "`buyer`: the buyer's choice; `mandatory`: 의무발행 (100,000원 or more at a 현금영수증 의무발행업종 store) to the National Tax Service's self-issue number 010-000-1234; " +
        '`seller`: issued afterwards by the seller (`POST /admin/v1/orders/{id}/cash-receipt` or the dashboard), a receipt of its own that refunds reduce through the gateway',
    }),
    identity: Nullable(Type.String({ description: "The phone, card or 사업자등록번호 it was issued to, masked (e.g. 010****5678): once issued, as the gateway's answer reports it (Toss: CashReceipt.customerIdentityNumber); before, the number asked" })),
    issueNumber: Nullable(Type.String({ description: '현금영수증 승인번호 (the simulator\'s test receipts start with T)' })),
    receiptUrl: Nullable(Type.String({ description: "Toss's page showing the receipt (null in test mode's simulator)" })),
    amount: Nullable(Won('What the receipt covers now')),
    failure: Nullable(
      Obj({ code: Type.String({ description: "The gateway's error code" }), message: Type.String({ description: "The gateway's message, as it gave it" }) }, { title: 'OrderCashReceiptFailure' }),
      { description: '`failed` only: why the gateway refused the receipt; null otherwise' },
    ),
  },
  { title: 'OrderCashReceipt' },
);
export type OrderCashReceiptView = Static<typeof OrderCashReceiptSchema>;

/** The contract's Order, every field always present (null when empty). */
export const OrderSchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    productId: Type.String(),
    productName: Type.String(),
    planId: Nullable(Type.String()),
    billingInterval: Nullable(IntervalSchema),
    checkoutSessionId: Nullable(Type.String()),
    status: OrderStatusSchema,
    amount: Won('Amount paid (after any coupon), integer won'),
    currency: CurrencySchema,
    method: PaymentMethodSchema,
    buyerName: Type.String(),
    buyerEmail: Type.String(),
    buyerPhone: Type.String(),
    metadata: Nullable(StringMap()),
    coupon: Nullable(OrderCouponSchema),
    periodStart: Nullable(DateTime('Billing period start')),
    periodEnd: Nullable(DateTime('Billing period end')),
    paidAt: Nullable(DateTime()),
    confirmedAt: Nullable(DateTime('Purchase confirmation time')),
    refundedAt: Nullable(DateTime()),
    refundedAmount: Nullable(Won('Cumulative refunded won; null until a refund exists')),
    refunds: Type.Array(OrderRefundItemSchema),
    createdAt: DateTime(),
    licenses: Type.Array(OrderLicenseSchema, {
      description:
        'Extension: the licenses this order gave the buyer, oldest first (`[]` when the product issues none). A subscription order lists the ' +
        "subscription's license, whose `expiresAt` each renewal moves forward. `key` is there whenever the service knows it: service-issued keys " +
        'at once (in `order.paid` too), seller-issued keys once the seller answered `license.issue` (`pending` with `key: null` before). ' +
        'Hand the key to the buyer from here or from `order.paid`; the receipt page (`receiptUrl`) shows it as well.',
    }),
    virtualAccount: Type.Optional(OrderVirtualAccountSchema),
    cashReceipt: Type.Optional(OrderCashReceiptSchema),
    presentment: Type.Optional(
      Obj(
        {
          amount: Type.Integer({ minimum: 0, description: 'What the buyer was charged, in cents (2889 = US$28.89)' }),
          currency: Type.Literal('USD'),
          refundedAmount: Type.Integer({ minimum: 0, description: 'Cents given back so far (the sum of `refunds[].presentment.amount`)' }),
        },
        {
          title: 'OrderPresentment',
          description:
            'Extension, PayPal orders only: the payment was made in US dollars (Toss requires USD for PayPal). `amount` (won) is the price at the store\'s fixed rate; ' +
            'this is the money that moved. A refund is entered in won; its dollars are the same fraction of the order, rounded half up to the cent, and the refund that ' +
            'completes the order gives back every cent left.',
        },
      ),
    ),
    receiptUrl: Type.String({
      format: 'uri',
      description:
        'Extension: the buyer\'s receipt page (Korean, mobile-friendly), an unguessable link `{base}/receipt/{orderId}?t=<token>`. ' +
        'It shows the order and its refunds and lets the buyer file a refund request or cancel an open one, so the seller never builds that page. ' +
        'Put it in your own e-mails; treat it like a password (whoever holds it can ask for a refund).',
    }),
  },
  { title: 'Order' },
);
export type OrderView = Static<typeof OrderSchema>;
export const OrderPage = PageOf(OrderSchema, 'OrderPage');
