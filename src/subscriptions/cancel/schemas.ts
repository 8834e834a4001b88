import { Type, type Static } from '@sinclair/typebox';
import { CheckedByService, CurrencySchema, DateTime, ModeSchema, Nullable, Obj, Won } from '../../platform/http/schemas';
import { SubscriptionSchema } from '../schemas';
import { PlainText } from '../../platform/text';

const KRW = CurrencySchema;

export const CancelReasonSchema = Type.Union(
  [
    Type.Literal('initial_full'),
    Type.Literal('statutory_full'),
    Type.Literal('renewal_full'),
    Type.Literal('prorated'),
    Type.Literal('past_due'),
    Type.Literal('nothing_refundable'),
  ],
  {
    description:
      '`initial_full`: the first payment, inside the withdrawal window and unused; `renewal_full`: a renewal, inside its window and unused; ' +
      '`statutory_full`: inside the window and used, but the product has no trial with a marked restriction (전자상거래법 제17조⑥), so withdrawal survives use; ' +
      '`prorated`: what is left after the days used, the annual-discount clawback (yearly, disclosed, outside the window) and the penalty (outside the window, at most 10%); ' +
      '`past_due`: no paid order covers the current period; `nothing_refundable`: blocked, or the computation comes to 0.',
  },
);

export const BlockedReasonSchema = Obj(
  {
    code: Type.Union([Type.Literal('SUBSCRIPTION_REFUND_SETTLED'), Type.Literal('REFUND_REQUEST_PENDING'), Type.Literal('ALREADY_ENDED')], {
      description:
        'Checked in this order: `ALREADY_ENDED`; `REFUND_REQUEST_PENDING` (an active refund request, or a `pending`/`unknown` refund of a current-period order); `SUBSCRIPTION_REFUND_SETTLED` (a current-period order is in a settlement round)',
    }),
    message: Type.String({ description: 'Korean, for the buyer or the seller' }),
  },
  { title: 'CancelBlockedReason' },
);

export const ImmediatePreviewSchema = Obj(
  {
    refundAmount: Won('What an immediate cancellation refunds now (the sum of `breakdown`)'),
    currency: KRW,
    fullRefund: Type.Boolean({ description: 'Everything still paid for the current period is refunded' }),
    reason: CancelReasonSchema,
    breakdown: Type.Array(Obj({ orderId: Type.String(), amount: Won(), currency: KRW }, { title: 'CancelBreakdownItem' }), {
      description: 'Per order of the current period (initial or renewal, and an upgrade\'s difference payment): what is refunded from it. Empty when nothing is refunded.',
    }),
    deduction: Won('Use deducted at the price paid: monthly floor(P × usedDays / totalDays); yearly floor(P × u / (12 × Dm)), u = k × Dm + d'),
    deductionCurrency: KRW,
    deductionCap: Won('The most that can be withheld: P, what was paid for the current period minus what was already refunded'),
    deductionCapCurrency: KRW,
    penalty: Won('floor(R × penaltyRate / 100), R = P − deduction − clawback; 0 inside the withdrawal window; penaltyRate ≤ 10'),
    penaltyCurrency: KRW,
    clawback: Won('Yearly plans bought at a discount, only when disclosed at checkout, never inside the window: the used time at the monthly list price less the deduction, capped at the whole discount'),
    clawbackCurrency: KRW,
    usedDays: Type.Integer({ minimum: 0, description: 'Monthly: KST days from the period start to today inclusive. Yearly: u = k × Dm + d (full month-cycles × days of the current cycle + days used in it)' }),
    totalDays: Type.Integer({ minimum: 0, description: 'Monthly: days of the period. Yearly: 12 × Dm' }),
    statutory: Type.Boolean({ description: 'Inside the withdrawal window W = max(7, refundDays) days after payment, ending 24:00 KST, a weekend or holiday rolling to the next business day' }),
    requiresApproval: Type.Boolean({ description: 'A non-statutory prorated refund: a buyer\'s immediate cancel from the portal files a refund request for the seller instead of refunding at once. A seller\'s cancel through the API is the seller\'s decision and refunds at once.' }),
    blockedReason: Nullable(BlockedReasonSchema, { description: 'Why an immediate cancellation is refused now; null when it is allowed' }),
  },
  { title: 'ImmediateCancelPreview' },
);

/** The refund-request record (the spec leaves its fields open); the refund-requests module documents the full record. */
export const PendingRefundRequestSchema = Obj(
  {
    id: Type.String({ description: '`rr_…`' }),
    mode: ModeSchema,
    orderId: Type.String(),
    subscriptionId: Nullable(Type.String()),
    status: Type.Union([Type.Literal('requested'), Type.Literal('held')]),
    amount: Won(),
    currency: KRW,
    reason: Nullable(Type.String()),
    statutory: Type.Boolean(),
    requestedAt: DateTime(),
  },
  { title: 'CancelPendingRefundRequest' },
);
export type PendingRefundRequestView = Static<typeof PendingRefundRequestSchema>;

export const CancelPreviewSchema = Obj(
  {
    mode: ModeSchema,
    periodEnd: Obj({ effectiveAt: DateTime('When a period-end cancellation takes effect: the current period end (an ended subscription: when it ended)') }),
    immediate: ImmediatePreviewSchema,
    pendingRefundRequest: Nullable(PendingRefundRequestSchema, { description: 'The active (requested or held) refund request of the subscription or one of its orders, or null' }),
  },
  { title: 'CancelPreview' },
);
export type CancelPreviewView = Static<typeof CancelPreviewSchema>;

export const CancelBody = Obj(
  {
    timing: Type.Union([Type.Literal('period_end'), Type.Literal('immediate')], {
      description: '`period_end`: ends at the current period end (no refund); `immediate`: ends now and refunds exactly what the cancel preview shows at this moment',
    }),
    reason: Type.Optional(PlainText({ maxLength: 500, description: 'Free text kept with the cancellation and passed to the refund' })),
  },
  { title: 'CancelSubscriptionRequest' },
);
export type CancelInput = Static<typeof CancelBody>;

export const CancelResultSchema = Obj(
  {
    subscription: SubscriptionSchema,
    refundOrderId: Nullable(Type.String({ description: 'The first order refunded (the period\'s main order); null when nothing was refunded' })),
    refundAmount: Won('Refunded now (0 for `period_end`, or when the refund went to a refund request)'),
    currency: KRW,
    refundedOrderIds: Type.Array(Type.String(), { description: 'Every order a refund was made from, in `breakdown` order' }),
    timing: Type.Union([Type.Literal('period_end'), Type.Literal('immediate')]),
  },
  { title: 'CancelSubscriptionResult' },
);
export type CancelResultView = Static<typeof CancelResultSchema>;

// ---------- portal sessions ----------

export const PortalSessionBody = Obj(
  {
    // The email format is checked by the service (BAD_REQUEST, the contract's code for this operation), with the
    // same grammar the document's `format: email` names (isEmailFormat).
    buyerEmail: Type.Optional(
      CheckedByService(
        Type.String({ maxLength: 320, description: 'The buyer\'s email (`format: email`, surrounding spaces ignored; else 400 BAD_REQUEST, not VALIDATION_FAILED). Without `subscriptionId`: opens the buyer\'s newest active or past-due subscription (none: NOT_FOUND). With it: must be that subscription\'s buyer (else SUBSCRIPTION_NOT_FOUND).' }),
        Type.String({ format: 'email', maxLength: 320 }),
      ),
    ),
    subscriptionId: Type.Optional(Type.String({ maxLength: 100, description: 'The subscription to open the portal for' })),
    returnUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the portal\'s "돌아가기" link leads: an absolute http(s) URL (else CHECKOUT_URL_INVALID) on the mode\'s return-URL allow-list (else RETURN_URL_NOT_ALLOWED)' })),
  },
  { title: 'CreatePortalSessionRequest', description: 'All fields optional, but `buyerEmail` or `subscriptionId` is needed (else BAD_REQUEST).' },
);
export type PortalSessionInput = Static<typeof PortalSessionBody>;

export const PortalSessionSchema = Obj(
  {
    id: Type.String({ description: '`ps_…`' }),
    mode: ModeSchema,
    subscriptionId: Type.String({ description: 'The subscription the portal opens on' }),
    buyerEmail: Type.String({ description: 'The portal shows this buyer\'s subscriptions and orders in the store and mode (within the key\'s product range)' }),
    returnUrl: Nullable(Type.String()),
    url: Type.String({ description: 'The hosted portal. Single-purpose (this buyer, this store and mode) and short-lived: it opens until `expiresAt`. Send the buyer there at once; do not store or email it.' }),
    expiresAt: DateTime('Creation time plus 60 minutes'),
    createdAt: DateTime(),
  },
  { title: 'PortalSession' },
);
export type PortalSessionView = Static<typeof PortalSessionSchema>;

/** `subscription.ended` of an immediate cancellation carries this beside the record (documented in the webhooks section). */
export const CancellationInfoSchema = Obj(
  {
    timing: Type.Literal('immediate'),
    actor: Type.Union([Type.Literal('seller'), Type.Literal('buyer')], { description: '`seller` (the API) or `buyer` (the hosted portal)' }),
    preview: ImmediatePreviewSchema,
    refundAmount: Won('Refunded by the cancellation (0 when a refund request was filed instead, or nothing was refundable)'),
    refundedOrderIds: Type.Array(Type.String()),
    refundRequestIds: Type.Array(Type.String(), { description: 'Refund requests filed for the seller\'s approval (a buyer\'s cancel that `requiresApproval`)' }),
  },
  { title: 'SubscriptionCancellation', description: 'Present when an immediate cancellation ended the subscription: the preview it executed and what it refunded' },
);

/** `subscription.ended` caused by a refund (src/subscriptions/cancel/withdrawal.ts) carries this beside the record. */
export const EndingRefundSchema = Obj(
  {
    kind: Type.Union([Type.Literal('withdrawal'), Type.Literal('full_refund'), Type.Literal('cancel_approved')], {
      description:
        '`withdrawal` (청약철회 refunded: `endReason: withdrawn`), `full_refund` (the whole current-period order refunded after its window: `endReason: refunded`), ' +
        '`cancel_approved` (the seller approved the refund of a portal cancel that waited for the decision: `endReason: canceled`)',
    }),
    orderId: Type.String({ description: 'The order whose refund ended the subscription' }),
    refundId: Type.String(),
    refundRequestId: Nullable(Type.String(), { description: 'The refund request the refund approved, if any' }),
    amount: Won('What that refund returned'),
    refundRequestIds: Type.Optional(Type.Array(Type.String(), { description: '`cancel_approved`: every refund request the portal cancel filed' })),
  },
  { title: 'SubscriptionEndingRefund', description: 'Present when a refund ended the subscription' },
);
