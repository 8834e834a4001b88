import { Type, type Static } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, StringMap, Won } from '../platform/http/schemas';
import { IntervalSchema } from '../orders/schemas';

export const SubscriptionStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('ended')], {
  description:
    '`active` (paid up; may carry `cancelAtPeriodEnd`), `past_due` (a renewal failed and retries are scheduled, see `nextRetryAt`), `ended` (final; see `endReason`)',
});

export const EndReasonSchema = Type.Union(
  [Type.Literal('canceled'), Type.Literal('payment_failed'), Type.Literal('price_change_declined'), Type.Literal('withdrawn'), Type.Literal('refunded'), Type.Literal('trial_not_confirmed')],
  {
    description:
      '`canceled` (a period-end or immediate cancellation), `payment_failed` (the last dunning retry failed), `price_change_declined` (the buyer did not agree to a price increase: ended at the period end, nothing charged), ' +
      '`withdrawn` (청약철회: an approved statutory refund request of the current period\'s order, or a refund of that whole order inside its withdrawal window; the contract is void, ended at once, nothing is charged on it again), ' +
      '`refunded` (the seller refunded the whole current-period order after its withdrawal window: nothing is paid for the period, so it ends at once), ' +
      '`trial_not_confirmed` (a free trial longer than 30 days whose buyer did not confirm the first charge within the 30 days before it: ended at the trial\'s end, nothing charged)',
  },
);

export const CardSummarySchema = Obj(
  {
    brand: Nullable(Type.String(), { description: 'Card company as the gateway names it (test mode: `카드`)' }),
    last4: Nullable(Type.String(), { description: 'Last four characters of the masked card number as the gateway gives it (may contain `*`)' }),
  },
  { title: 'SubscriptionCard' },
);

export const RecurringConsentSchema = Obj(
  {
    text: Type.String({ description: 'The exact sentence next to the checkbox the buyer ticked on the payment page (Korean): amounts, cycle, first charge date, how to cancel' }),
    consentedAt: DateTime('When the buyer submitted the payment page with the box ticked'),
  },
  {
    title: 'RecurringConsent',
    description:
      'The buyer\'s separate consent to the recurring charge (전자상거래법 제13조⑥ and 시행령 제20조의2, in force 2025-02-14), kept word for word. The payment page refuses to pay without it.',
  },
);

export const PendingPlanChangeSchema = Obj(
  {
    planId: Type.String(),
    billingInterval: IntervalSchema,
    amount: Won('What renewals charge from `effectiveAt`'),
    currency: CurrencySchema,
    effectiveAt: DateTime('The next renewal (the current period end)'),
  },
  { title: 'PendingPlanChange', description: 'A downgrade waiting for the next renewal' },
);

export const PendingPriceChangeSchema = Obj(
  {
    priceChangeId: Type.String({ description: 'The seller\'s price change (`ppc_…`, GET /admin/v1/price-changes/{id})' }),
    currentAmount: Won('What the subscription paid when it was told'),
    amount: Won('What renewals charge from `effectiveAt`: for an increase only once `acceptedAt` is set'),
    currency: CurrencySchema,
    effectiveAt: DateTime('The renewal that first charges the new price (this subscription\'s own date, at least 30 days after it was told)'),
    consentRequired: Type.Boolean({ description: 'An increase: without the buyer\'s consent in the portal by `effectiveAt`, the subscription ends then without a charge (`endReason: price_change_declined`)' }),
    acceptedAt: Nullable(DateTime('When the buyer agreed to the increase (the portal, or a payment page that stated the new price)')),
  },
  {
    title: 'PendingPriceChange',
    description:
      'A plan price change ahead of this subscription. `amount` of the Subscription stays the current period\'s price until the renewal at `effectiveAt` charges the new one; then this is null again.',
  },
);

/**
 * The Subscription record. The spec shows it only inside the cancel result; these fields are this service's
 * documented choice, every one always present (null when empty).
 */
export const SubscriptionSchema = Obj(
  {
    id: Type.String({ description: '`sub_…`' }),
    mode: ModeSchema,
    status: SubscriptionStatusSchema,
    productId: Type.String(),
    productName: Type.String(),
    planId: Type.String({ description: 'An id of the product\'s `pricing.plans[]`' }),
    billingInterval: IntervalSchema,
    amount: Won(
      'What the current period was sold at and each renewal charges (the plan\'s list price; a checkout coupon applies to the first order only). A renewal that buys something else says so: `pendingPlanChange`, or `pendingPriceChange` (a price change, from its `effectiveAt`; an increase only once the buyer agreed)',
    ),
    currency: CurrencySchema,
    currentPeriodStart: DateTime(),
    currentPeriodEnd: DateTime('The next renewal, or the end when `cancelAtPeriodEnd`'),
    cancelAtPeriodEnd: Type.Boolean({ description: 'A period-end cancellation is scheduled' }),
    canceledAt: Nullable(DateTime('When a cancellation was requested')),
    endedAt: Nullable(DateTime()),
    endReason: Nullable(EndReasonSchema),
    startedAt: DateTime('When the first payment was made (lists sort by this, newest first)'),
    buyerName: Type.String(),
    buyerEmail: Type.String(),
    buyerPhone: Type.String(),
    card: Nullable(CardSummarySchema, { description: 'The card the billing key charges; null when none is stored' }),
    latestOrderId: Nullable(Type.String({ description: 'The most recent paid order (initial, renewal or difference)' })),
    metadata: Nullable(StringMap({ description: 'Copied from the checkout session' })),
    pendingPlanChange: Nullable(PendingPlanChangeSchema),
    pendingPriceChange: Nullable(PendingPriceChangeSchema),
    nextRetryAt: Nullable(DateTime('`past_due` only: when the next renewal retry runs')),
    trialEndsAt: Nullable(
      DateTime('When the free trial ends and the first charge (`amount`) is due, as the renewal at `currentPeriodEnd`; null when the subscription started without a trial'),
    ),
    trialing: Type.Boolean({
      description:
        'In its free trial: `status` stays `active` (licences valid, cancel and the portal work as for any active subscription) and nothing has been charged yet. False once the first charge was made or tried (a failed one makes it `past_due`) and after it ended.',
    }),
    recurringConsent: Nullable(RecurringConsentSchema, { description: 'Null only for subscriptions started before consents were recorded' }),
    createdAt: DateTime(),
  },
  { title: 'Subscription' },
);
export type SubscriptionView = Static<typeof SubscriptionSchema>;
export const SubscriptionPage = PageOf(SubscriptionSchema, 'SubscriptionPage');

export const SubscriptionListQuery = PageQuery({
  status: Type.Optional(SubscriptionStatusSchema),
  buyerEmail: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Exact buyer email, compared case-insensitively' })),
  productId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
