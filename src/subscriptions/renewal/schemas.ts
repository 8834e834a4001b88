import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../../platform/http/schemas';

export const ChargeStatusSchema = Type.Union([Type.Literal('charging'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('needs_attention')], {
  description:
    '`charging`: with the gateway, or its answer was unknown and it is asked again (same idempotency key) 5 min, 15 min, 1 h, 3 h, 6 h and 12 h later (`nextAttemptAt`); ' +
    '`needs_attention`: still unanswered after the 7th call or 24 h — never retried automatically, nothing announced; settle it with `…/resolve` or ask again with `…/retry`; ' +
    '`succeeded` / `failed`: recorded',
});

export const SubscriptionChargeSchema = Obj(
  {
    id: Type.String({ description: '`sch_…`; also the gateway idempotency key of every call for this charge' }),
    mode: ModeSchema,
    subscriptionId: Type.String(),
    kind: Type.Union([Type.Literal('renewal'), Type.Literal('difference')], { description: '`renewal` (a period, or a dunning retry of it) or `difference` (an upgrade)' }),
    status: ChargeStatusSchema,
    amount: Won(),
    currency: CurrencySchema,
    orderId: Type.String({ description: 'The order id reserved for it, sent to the gateway as its orderId (search the gateway\'s dashboard by it); the order exists once `succeeded`' }),
    periodStart: DateTime(),
    periodEnd: DateTime(),
    attempt: Type.Integer({ minimum: 0, description: '0 for the charge at the period end, 1… for dunning retries' }),
    unknownAttempts: Type.Integer({ minimum: 0, description: 'How many gateway answers were unknown' }),
    firstUnknownAt: Nullable(DateTime()),
    nextAttemptAt: Nullable(DateTime('`charging` only: when the gateway is asked again if no worker holds it')),
    error: Nullable(Obj({ code: Nullable(Type.String()), message: Nullable(Type.String()) }), { description: 'The last failure or unknown answer' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'SubscriptionCharge' },
);
export type SubscriptionChargeView = Static<typeof SubscriptionChargeSchema>;

export const SubscriptionChargePage = PageOf(SubscriptionChargeSchema, 'SubscriptionChargePage');

export const ChargeListQuery = PageQuery({
  mode: Type.Optional(ModeSchema),
  status: Type.Optional(ChargeStatusSchema),
  subscriptionId: Type.Optional(Type.String({ maxLength: 100 })),
});

export const ResolveChargeBody = Obj(
  {
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')], { description: 'What the gateway\'s dashboard shows for this charge (search by its `orderId`)' }),
    note: Type.String({ minLength: 1, maxLength: 500, description: 'Why (kept as the failure message of a `failed` charge)' }),
    paymentKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: '`succeeded`: the gateway\'s payment key, so the order can be refunded through the API later' })),
  },
  { title: 'ResolveSubscriptionChargeRequest' },
);
