import { Type, type TSchema } from '@sinclair/typebox';
import { OrderCashReceiptSchema, OrderSchema } from '../orders/schemas';
import { RefundSchema } from '../refunds/schemas';
import { RefundRequestSchema, RefundRequestStatusSchema } from '../refunds/requests/schemas';
import { SubscriptionSchema } from '../subscriptions/schemas';
import { CancellationInfoSchema, EndingRefundSchema } from '../subscriptions/cancel/schemas';
import { ReconciliationSchema } from '../reconciliation/schemas';
import { TaxInvoiceSchema } from '../tax/invoices/schemas';
import { DateTime, ModeSchema, Nullable, Obj } from '../platform/http/schemas';
import { RETRY_SCHEDULE_MS } from '../jobs/queue';
import { MAX_ATTEMPTS } from './model';

/**
 * The OpenAPI `webhooks` section of the public document: one operation per event type, each with the envelope
 * `{ id, type, mode, createdAt, data }` around that type's data, the signing headers and the retry schedule.
 */

const human = (ms: number) => (ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`);
export const RETRY_SCHEDULE_TEXT = RETRY_SCHEDULE_MS.map(human).join(', ');

const DELIVERY_RULES = [
  'Delivered by HTTP POST with `Content-Type: application/json`, signed with the standard-webhooks scheme using the endpoint secret (`whsec_…`).',
  'Verify the signature over the raw body before parsing JSON, e.g. `new Webhook(secret).verify(rawBody, headers)` from the `standardwebhooks` library.',
  'Any 2xx answer is success. A timeout (15 s), a connection error or any other status is retried after ' +
    `${RETRY_SCHEDULE_TEXT} (${MAX_ATTEMPTS} attempts in all); after the last one the delivery is marked failed and can be resent from the seller console.`,
  'Delivery is at-least-once: the same event may arrive more than once, always with the same `webhook-id` (= event `id`); de-duplicate on it.',
  'Answering `410 Gone` disables the endpoint at once; an endpoint failing without a break for 5 days is disabled automatically. Redirects are not followed.',
  'An endpoint receives only events of its own mode (`live`/`test`) and of the types it subscribed to. Events stay available for resending for 30 days.',
].join('\n\n');

const HEADERS = [
  { name: 'webhook-id', description: 'The event id; identical on every retry of the same event.' },
  { name: 'webhook-timestamp', description: 'Unix time in seconds when this attempt was signed. Reject messages too far from your clock (the library allows 5 minutes).' },
  {
    name: 'webhook-signature',
    description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `${webhook-id}.${webhook-timestamp}.${body}`. After a secret rotation it carries one signature per secret still valid (the old secret signs for 24 h more).',
  },
].map((h) => ({ in: 'header', name: h.name, required: true, description: h.description, schema: { type: 'string' } }));

export const LicenseIssueDataSchema = Obj(
  {
    mode: ModeSchema,
    licenseId: Type.String(),
    orderId: Type.String(),
    productId: Type.String(),
    planId: Nullable(Type.String()),
    interval: Nullable(Type.Union([Type.Literal('monthly'), Type.Literal('yearly')])),
    buyer: Obj({ email: Type.String(), name: Type.String() }),
    maxActivations: Nullable(Type.Integer({ minimum: 0 })),
    expiresAt: Nullable(DateTime()),
  },
  { title: 'LicenseIssueData' },
);

const EVENT_DATA: Array<{ type: string; summary: string; description: string; data: TSchema; answer?: string }> = [
  {
    type: 'order.paid',
    summary: 'A payment succeeded (first, renewal or difference payment)',
    description:
      '`data` is the Order with `metadata` copied from the checkout session, plus `subscriptionEvent` classifying subscription payments (`null` for one-time purchases): ' +
      '`initial` (the checkout that started the subscription), `renewal` (a period renewal, including a dunning retry or card update that recovered it), `difference` (the prorated charge of an upgrade). ' +
      'Subscription payments also carry `subscriptionId`. ' +
      '`receiptUrl` is the buyer\'s receipt page (order, refunds, refund requests): put it in your own confirmation e-mail. ' +
      '`licenses` lists the licenses the payment gave the buyer (`[]` when the product issues none): `{ id, key, status, expiresAt }`, the `key` ready to hand to the buyer ' +
      'for service-issued licenses; a seller-issued license is `pending` with `key: null` here (your answer to `license.issue` provides it). A renewal carries the subscription\'s license with its new `expiresAt`.',
    data: Type.Composite(
      [
        OrderSchema,
        Obj({
          subscriptionEvent: Nullable(Type.Union([Type.Literal('initial'), Type.Literal('renewal'), Type.Literal('difference')])),
          subscriptionId: Type.Optional(Type.String({ description: 'Subscription payments only: the subscription paid for' })),
        }),
      ],
      { additionalProperties: false, title: 'OrderPaidData' },
    ),
  },
  {
    type: 'order.awaiting_deposit',
    summary: 'A 가상계좌 (virtual account) was issued; the order waits for the buyer\'s deposit',
    description:
      '`data` is the Order with `status` `awaiting_deposit` and `virtualAccount` `{ bankCode, bankName, accountNumber, holderName, dueAt, depositedAt: null, refundAccountSet }`. ' +
      'Nothing is paid yet and no license is issued: tell the buyer where and by when to deposit. The deposit is announced by `order.paid` (licenses then issued, ' +
      'the withdrawal window starting at the deposit); a due date passed without it by `order.expired`.',
    data: OrderSchema,
  },
  {
    type: 'order.expired',
    summary: 'A 가상계좌 order\'s due date passed without the deposit',
    description: '`data` is the Order with `status` `expired`. The unit of stock and the coupon redemption it held were given back; nothing was paid.',
    data: OrderSchema,
  },
  {
    type: 'order.refunded',
    summary: 'A refund of an order succeeded (each refund, partial or full)',
    description:
      '`data.refund` is the refund record (status `succeeded`), `data.order` the Order after it (`refundedAmount`, `refundedAt`, `refunds`, `status` `paid` while something is left, `refunded` when nothing is), ' +
      '`data.licensesRevoked` how many of the order\'s licenses this refund revoked (a full refund without `keepLicenses`). Refunds that settle later (after PG_REFUND_AMBIGUOUS) are reported here when they do.',
    data: Obj(
      { refund: RefundSchema, order: OrderSchema, licensesRevoked: Type.Integer({ minimum: 0 }) },
      { title: 'OrderRefundedData' },
    ),
  },
  {
    type: 'cash_receipt.failed',
    summary: 'The gateway refused an order\'s 현금영수증',
    description:
      '`data.orderId` is the order, `data.cashReceipt` its receipt with `status` `failed` and `failure` `{ code, message }` as the gateway (Toss) gave them, ' +
      '`data.attempts` how many issue attempts were made, `data.order` the Order. Sent for a receipt the order owes: the buyer\'s number asked on the payment page, ' +
      'a 의무발행 to the self-issue number 010-000-1234, or a retry. Retry it, or issue it by hand with another number, from the dashboard\'s order page ' +
      '(or `POST /admin/v1/orders/{id}/cash-receipt` with the number): each retry takes a new idempotency key, a double click issues once.',
    data: Obj(
      { orderId: Type.String(), cashReceipt: Nullable(OrderCashReceiptSchema), attempts: Type.Integer({ minimum: 1 }), order: OrderSchema },
      { title: 'CashReceiptFailedData' },
    ),
  },
  {
    type: 'refund_request.created',
    summary: 'A buyer filed a refund request (on the order\'s receipt page)',
    description:
      '`data` is the RefundRequest (`status` `requested`). A `statutory` request cannot be held or rejected and is approved automatically at `autoApproveAt` unless decided before; ' +
      'approve it with `POST /v1/refund-requests/{id}/approve`.',
    data: RefundRequestSchema,
  },
  {
    type: 'refund_request.updated',
    summary: 'A refund request changed state (held, approved, rejected, canceled by the buyer)',
    description:
      '`data` is the RefundRequest after the change plus `previousStatus` (equal to `status` when a held request was held again with a new reason). ' +
      'An approval is reported once its refund succeeded (`status` `approved`, `refundId` set), alongside that refund\'s `order.refunded`.',
    data: Type.Composite([RefundRequestSchema, Obj({ previousStatus: RefundRequestStatusSchema })], { additionalProperties: false, title: 'RefundRequestUpdatedData' }),
  },
  {
    type: 'subscription.updated',
    summary: 'A subscription changed',
    description:
      '`data` is the Subscription record after the change plus `change`, whose `kind` tells what changed: `period_renewed` (a renewal was paid; with `orderId`, `periodStart`, `periodEnd`, `recovered`), ' +
      '`cancel_scheduled` (period-end cancellation scheduled), `cancel_unscheduled` (a scheduled cancellation undone), `cancel_refund_pending` (a buyer\'s immediate cancel in the portal whose refund awaits the seller: the service runs until the decision and `cancelAtPeriodEnd` is set so nothing renews; with `refundRequestIds`, `effectiveAt`, `preview`; an approval ends it, `subscription.ended` with `refund.kind: cancel_approved`), `cancel_refund_rejected` (the seller rejected such a request: it runs to its period end; with `refundRequestId`, `effectiveAt`), `payment_failed` (a renewal charge failed: `status` is `past_due`; with `attempt`, `errorCode`, `errorMessage`, `nextRetryAt`), ' +
      '`card_updated` (with `card`), `card_removed` (the gateway no longer holds the card\'s billing key: a charge was refused with Toss\'s `NOT_FOUND_BILLING`; a `BILLING_DELETED` webhook alone changes nothing; `card` is null and renewals go to dunning until the buyer registers a new card), `plan_changed` (an upgrade in effect now; with `orderId` of the difference payment, `from`, `to`), `plan_change_scheduled` (a downgrade or interval change for the next renewal; with `effectiveAt`, `from`, `to`, or `canceled: true` when undone), ' +
      '`plan_change_withdrawn` (an upgrade\'s difference order was withdrawn on its own — an approved statutory refund request of it (청약철회) — or refunded in full: the upgrade contract is void and the subscription is back on the plan, interval and renewal price it had just before that upgrade, with the terms, recurring consent and any scheduled change of that time; the next renewal charges that price; nothing else is charged or refunded; with `orderId` and `amount` of the difference order\'s refund, `refundId`, `refundRequestId`, `statutory`, `from` (the upgraded plan) and `to` (the plan returned to); a later upgrade in the same period, priced from the withdrawn one, falls with it; withdrawing the period\'s base order as well ends the subscription, `subscription.ended` `withdrawn`), ' +
      '`price_change_scheduled` (the seller scheduled a new price for the subscription\'s plan, at least 30 days ahead; with `priceChangeId`, `planId`, `billingInterval`, `currentAmount`, `newAmount`, `effectiveAt` (from when it applies to this subscription), `decideBy` (the renewal that first charges it) and `consentRequired` (an increase: without the buyer\'s consent in the portal the subscription ends at that renewal, `endReason: price_change_declined`, nothing charged); or `priceChangeId`, `planId` and `canceled: true` when the seller withdrew it), ' +
      '`price_change_accepted` (the buyer agreed in the portal to the increase; the same fields plus `acceptedAt`), `price_change_declined` (the buyer declined it in the portal; the same fields plus `declinedAt` and `endsAt` = `decideBy`, when the subscription ends with nothing charged unless the buyer agrees before it). ' +
      '`plan_change_offered` (the seller changed the plan in a way that would make the buyer pay more, now or at renewal: nothing changed or charged until the buyer accepts in the portal; with `offerId`, `from`, `to`, `timing` (`now`: accepting charges the prorated difference then; `next_renewal`) and `deadline`), ' +
      '`plan_change_offer_closed` (the offer closed without a change; with `offerId`, `to` and `outcome`: `declined` by the buyer, `withdrawn` by the seller or replaced by a newer offer, `lapsed` at its deadline; an accepted offer is the change itself, `plan_changed` or `plan_change_scheduled`), ' +
      '`trial_consent_given` (the buyer confirmed in the portal the first charge of a trial longer than 30 days, within the 30 days before it; with `trialEndsAt`, `amount`, `consentedAt`; without it the trial ends unpaid, `endReason: trial_not_confirmed`). ' +
      '`trial_will_end` (a free trial\'s conversion notice ahead of its first charge, TRIAL_NOTICE_DAYS (default 30) before it, or for a shorter trial at signup and 3 days before its end; once per notice; with `trialEndsAt`, `amount`, `currency`, `interval`, `notice` (`lead`, `signup`, `final`), `consentRequired` (a trial longer than 30 days: this notice asks the buyer to confirm the first charge in the portal)); the trial\'s first charge itself is a `period_renewed`. ' +
      '`renewal_upcoming` (a yearly plan renews soon, written once per period MAIL_RENEWAL_NOTICE_DAYS ahead; with `renewsAt`, `amount`). ' +
      'Receivers should ignore kinds they do not know.',
    data: Type.Composite([SubscriptionSchema, Obj({ change: Type.Object({ kind: Type.String({ examples: ['period_renewed', 'cancel_scheduled', 'payment_failed'] }) }, { additionalProperties: true }) })], {
      additionalProperties: false,
      title: 'SubscriptionUpdatedData',
    }),
  },
  {
    type: 'subscription.ended',
    summary: 'A subscription actually ended',
    description:
      '`data` is the ended Subscription record: `status: ended`, `endedAt`, and `endReason` — `canceled` (a period-end cancellation reached its period end, or an immediate cancellation), `payment_failed` (the last dunning retry failed) or `price_change_declined` (the buyer did not agree to a plan price increase: ended at the period end, nothing charged). Its licenses expire. ' +
      'An immediate cancellation adds `cancellation`: the preview it executed and what it refunded. ' +
      '`withdrawn` (청약철회: an approved statutory refund request of the current period\'s order, or that whole order refunded inside its withdrawal window; the contract is void and nothing is charged on it again) and `refunded` (that whole order refunded after its window) end it at once, as does the seller\'s approval of a portal cancel that waited for the decision (`canceled`); these add `refund`: the refund that ended it.',
    data: Type.Composite([SubscriptionSchema, Obj({ cancellation: Type.Optional(CancellationInfoSchema), refund: Type.Optional(EndingRefundSchema) })], { additionalProperties: false, title: 'SubscriptionEndedData' }),
  },
  {
    type: 'reconciliation.completed',
    summary: 'A reconciliation with Toss Payments completed',
    description:
      '`data` is the Reconciliation record (`id`, `mode`, `date` (the KST day compared), `status: completed`, `differenceCount`, `gatewayTransactions`, …). ' +
      'Read its differences with `GET /admin/v1/reconciliations/{id}` (seller console). Sent once per completed run, daily and on demand; a failed run sends nothing.',
    data: ReconciliationSchema,
  },
  {
    type: 'tax_invoice.issued',
    summary: 'A 세금계산서 was issued for an order',
    description:
      '`data.taxInvoice` is the TaxInvoice (`kind: original`, `status: issued`) with the provider\'s answer (`providerInvoiceId`, `ntsApprovalNumber`, `pdfUrl`). ' +
      'Sent once per document, whether the seller issued it by hand, the store issues automatically, or a retry found the document at the provider.',
    data: Obj({ taxInvoice: TaxInvoiceSchema }, { title: 'TaxInvoiceEventData' }),
  },
  {
    type: 'tax_invoice.amended',
    summary: 'A 수정세금계산서 was issued after a refund',
    description:
      '`data.taxInvoice` is the amendment (`kind: amendment`, negative amounts, `modificationType` `CANCELLATION_OF_CONTRACT` for a full refund or `CHANGE_IN_SUPPLY_COST` for a partial one, ' +
      '`originalId`, `refundId`).',
    data: Obj({ taxInvoice: TaxInvoiceSchema }, { title: 'TaxInvoiceAmendedData' }),
  },
  {
    type: 'tax_invoice.failed',
    summary: 'The tax-invoice provider refused a 세금계산서 or 수정세금계산서',
    description:
      '`data.taxInvoice` has `status: failed` and the refusal in `providerStatus` / `providerMessage`; nothing was issued. The seller may correct the cause and issue it again ' +
      '(`POST /admin/v1/tax-invoices/{id}/issue`).',
    data: Obj({ taxInvoice: TaxInvoiceSchema }, { title: 'TaxInvoiceFailedData' }),
  },
  {
    type: 'license.issue',
    summary: 'Issue a license from the seller system (seller-side issuance)',
    description: 'Sent when a product issues licenses on the seller side. Answer 2xx with the license issue response.',
    data: LicenseIssueDataSchema,
    answer: 'License issue response: `key` (1 to 256 characters, required), `expiresAt` (date-time or null: the requested value), `maxActivations` (integer ≥ 0 or null: the requested value; 0 means unlimited). Other fields are ignored.',
  },
  {
    type: 'webhook.test',
    summary: 'A test delivery requested from the seller console',
    description: '`data` is an empty object.',
    data: Obj({}),
  },
];

function envelope(type: string, data: TSchema): TSchema {
  return Obj(
    {
      id: Type.String({ description: 'Event id (`evt_…`), the `webhook-id` header; stable across retries' }),
      type: Type.Literal(type),
      mode: ModeSchema,
      createdAt: DateTime('When the event happened'),
      data,
    },
    { title: `${type} event` },
  );
}

/** JSON Schema without TypeBox's symbol-keyed internals, so it serialises as written. */
const plain = (s: TSchema) => JSON.parse(JSON.stringify(s));

export function webhookDocs(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_DATA.map((e) => [
      e.type,
      {
        post: {
          operationId: `webhook_${e.type.replace(/\./g, '_')}`,
          summary: e.summary,
          description: `${e.description}\n\n${DELIVERY_RULES}`,
          tags: ['Webhooks'],
          parameters: HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: plain(envelope(e.type, e.data)) } } },
          responses: {
            '200': { description: e.answer ?? 'Any 2xx acknowledges the delivery; the body is ignored.' },
            '410': { description: 'Gone: the endpoint is disabled at once and receives nothing more.' },
          },
        },
      },
    ]),
  );
}
