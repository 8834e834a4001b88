import { Type, type Static } from '@sinclair/typebox';
import { OrderSchema } from '../orders/schemas';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../platform/http/schemas';
import { PlainText } from '../platform/text';

export const RefundStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('unknown')], {
  description:
    '`pending`: recorded, the payment gateway has not answered yet; `succeeded`: refunded (the order shows it); `failed`: the gateway refused, nothing moved; ' +
    '`unknown`: the gateway did not answer in time, the refund may have happened; the service looks the payment up and settles it to `succeeded` or `failed` ' +
    '(an `order.refunded` event follows when it succeeded). While a refund of an order is `pending` or `unknown`, other refunds of it answer REFUND_IN_PROGRESS.',
});

export const RefundSourceSchema = Type.Union([Type.Literal('api'), Type.Literal('console'), Type.Literal('refund_request'), Type.Literal('subscription_cancel'), Type.Literal('gateway')], {
  description:
    'Who asked: `api` (POST /v1/orders/{id}/refund), `console` (seller console), `refund_request` (an approved refund request), `subscription_cancel` (an immediate subscription cancellation), ' +
    '`gateway` (a cancel made at the payment gateway itself, e.g. in Toss\'s merchant admin, learned from its webhook and confirmed with its API)',
});

/** The refund record: the contract's `{ id, amount, currency, reason, refundedAt }` plus its state and links. */
export const RefundSchema = Obj(
  {
    id: Type.String({ description: 'Refund id (`rf_…`)' }),
    orderId: Type.String(),
    amount: Won('Refunded (or, until it succeeds, requested) amount, integer won'),
    currency: CurrencySchema,
    reason: Nullable(Type.String(), { description: 'The reason given, or null' }),
    status: RefundStatusSchema,
    refundedAt: Nullable(DateTime('When the refund succeeded; null until then')),
    keepLicenses: Type.Boolean({ description: 'Whether the seller asked to keep the order\'s licenses on a full refund' }),
    refundRequestId: Nullable(Type.String({ description: 'The refund request this refund carried out, if any' })),
    source: RefundSourceSchema,
    failure: Nullable(
      Obj(
        { code: Type.String({ description: 'The gateway\'s code (e.g. Toss `NOT_CANCELABLE_PAYMENT`), or `RECONCILE_MISMATCH` when the gateway\'s state could not be matched' }), message: Type.String() },
        { title: 'RefundFailure' },
      ),
      { description: 'Why a refund failed (or why an unknown one needs the seller\'s attention); null otherwise' },
    ),
    createdAt: DateTime(),
    presentment: Type.Optional(
      Obj({ amount: Type.Integer({ minimum: 0 }), currency: Type.Literal('USD') }, {
        description:
          'Extension, PayPal orders only: what this refund gives back at the gateway in US dollars (cents), fixed before the gateway is called: the same fraction ' +
          'of the order\'s dollars as `amount` is of its won, rounded half up to the cent; the refund that completes the order gives back every cent left',
      }),
    ),
  },
  { title: 'Refund' },
);

export const RefundOrderBody = Obj(
  {
    amount: Type.Optional(
      Type.Integer({
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'Integer won to refund; omitted = everything still refundable (amount − refundedAmount). Not greater than 0 → REFUND_AMOUNT_INVALID; above what is left → REFUND_EXCEEDS. A fractional number is a VALIDATION_FAILED.',
      }),
    ),
    reason: Type.Optional(Nullable(PlainText({ maxLength: 500 }), { description: 'Shown on the order\'s refunds and sent to the payment gateway as the cancel reason (cut to the gateway\'s limit: Toss takes 200 characters; the full reason is kept here); at most 500 characters' })),
    keepLicenses: Type.Optional(
      // No `default` keyword: the handler applies it (`?? false`), and a default in a named request schema makes
      // openapi-typescript's generated clients require the field.
      Type.Boolean({
        description: 'Default `false`. A refund that leaves nothing refundable revokes the order\'s licenses (they answer `revoked` from then on) unless this is true. Partial refunds never revoke.',
      }),
    ),
  },
  { title: 'RefundOrderRequest' },
);
export type RefundOrderBodyT = Static<typeof RefundOrderBody>;

export const RefundOrderResult = Obj({ refund: RefundSchema, order: OrderSchema }, { title: 'RefundOrderResult' });

export const RefundPage = PageOf(RefundSchema, 'RefundPage');

export const AdminRefundsQuery = PageQuery({
  mode: Type.Optional(ModeSchema),
  orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(RefundStatusSchema),
});

export const AdminRefundOrderBody = Obj(
  { mode: ModeSchema, ...RefundOrderBody.properties },
  { title: 'AdminRefundOrderRequest' },
);

export const SettlementOrderSchema = Obj(
  {
    orderId: Type.String(),
    paidAt: Nullable(DateTime()),
    gross: Won('What the order took'),
    refunded: Won('What had been refunded of it when it was settled'),
    fee: Won('Service fee: floor((gross − refunded) × feeRateBps / 10000)'),
    net: Won('gross − refunded − fee'),
  },
  { title: 'SettlementOrder' },
);

const settlementProps = {
  id: Type.String({ description: 'Settlement round id (`stl_…`)' }),
  mode: ModeSchema,
  cutoff: DateTime('Orders paid up to this instant (and out of their withdrawal window when the round was made) are in the round'),
  orderCount: Type.Integer({ minimum: 0 }),
  gross: Won('Sum of the orders\' amounts'),
  refunds: Won('Sum refunded of them before settlement'),
  fees: Won('Sum of the per-order fees'),
  net: Won('The payout: gross − refunds − fees'),
  feeRateBps: Type.Integer({ minimum: 0, description: 'Fee rate in basis points of what each order kept (330 = 3.3 %)' }),
  source: Type.Union([Type.Literal('job'), Type.Literal('console')], { description: '`job`: the weekly scheduler; `console`: made by the seller' }),
  periodKey: Nullable(Type.String({ description: 'The weekly job\'s week (its KST Monday, YYYY-MM-DD); null for console rounds' })),
  createdBy: Type.String(),
  createdAt: DateTime(),
};

export const SettlementSchema = Obj(settlementProps, { title: 'SettlementRound' });
export const SettlementWithOrdersSchema = Obj({ ...settlementProps, orders: Type.Array(SettlementOrderSchema) }, { title: 'SettlementRoundWithOrders' });
export const SettlementPage = PageOf(SettlementSchema, 'SettlementRoundPage');
export const SettlementListQuery = PageQuery({ mode: Type.Optional(ModeSchema) });
export const CreateSettlementBody = Obj(
  {
    mode: ModeSchema,
    cutoff: Type.Optional(DateTime('Settle orders paid up to this instant; default (and at most) now')),
  },
  { title: 'CreateSettlementRequest' },
);

/** The console refund's Idempotency-Key (the public API's is declared by the platform); other headers pass. */
export const ConsoleIdempotencyHeaders = Type.Object(
  { 'idempotency-key': Type.Optional(Type.String({ description: 'Required: 1 to 255 characters after trimming; a retry with the same key never refunds twice' })) },
  { additionalProperties: true },
);

export const ResolveRefundBody = Obj(
  {
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')], { description: 'What the gateway\'s dashboard shows for this refund' }),
    note: Type.String({ minLength: 1, maxLength: 500, description: 'Why (kept as the failure message of a `failed` refund)' }),
  },
  { title: 'ResolveRefundRequest' },
);
