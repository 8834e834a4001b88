import { Type } from '@sinclair/typebox';
import { CurrencySchema, DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../../platform/http/schemas';
import { OrderSchema } from '../../orders/schemas';
import { RefundSchema } from '../schemas';
import { MAX_REASON } from './model';
import { PlainText } from '../../platform/text';

export const RefundRequestStatusSchema = Type.Union(
  [Type.Literal('requested'), Type.Literal('held'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('canceled')],
  {
    description:
      '`requested` (filed by the buyer) → `held` (the seller holds it) → `approved` (refunded; `refundId` set) | `rejected`; ' +
      '`requested`/`held` → `canceled` (withdrawn by the buyer). Only `requested` and `held` are actionable; the others are final.',
  },
);

export const RefundRequestSchema = Obj(
  {
    id: Type.String({ description: '`rr_…`' }),
    mode: ModeSchema,
    orderId: Type.String(),
    subscriptionId: Nullable(Type.String(), { description: 'The subscription, when the request was filed by an immediate subscription cancellation (the portal); `null` for requests filed on a receipt page, which are about their order only' }),
    status: RefundRequestStatusSchema,
    amount: Won('The amount the buyer asked for (default at filing: everything then refundable)'),
    currency: CurrencySchema,
    reason: Nullable(Type.String(), { description: "The buyer's reason" }),
    statutory: Type.Boolean({
      description:
        'Filed inside the statutory withdrawal window (전자상거래법 제17조: W = max(7 days, the product\'s `refundPolicy.refundDays`) after payment, ending 24:00 KST, ' +
        'rolled to the next business day), and not barred by use (content used AND the seller marked the restriction AND offered a trial). ' +
        'A statutory request cannot be held or rejected, nor approved for less than asked (REFUND_STATUTORY_LOCKED), and is approved automatically at `autoApproveAt`.',
    }),
    requestedAt: DateTime(),
    decidedAt: Nullable(DateTime('When it became approved (the refund time), rejected or canceled; `null` while requested or held')),
    decidedBy: Nullable(
      Type.Union([Type.Literal('api'), Type.Literal('console'), Type.Literal('auto'), Type.Literal('buyer')]),
      { description: 'Who acted last: the seller through the API or the console, `auto` (approved automatically at `autoApproveAt`), `buyer` (canceled)' },
    ),
    decisionReason: Nullable(Type.String(), { description: 'The reason given when holding, rejecting or approving' }),
    approvedAmount: Nullable(Won('The amount refunded on approval; `null` until approved')),
    refundId: Nullable(Type.String({ description: 'The refund made on approval (`rf_…`)' })),
    autoApproveAt: Nullable(
      DateTime(
        'When an undecided request is approved automatically (the seller\'s deadline). Statutory requests: 12:00 KST on the 3rd Korean business day after filing (the filing day, weekends and public holidays excluded), inside the 3 business days of 전자상거래법 제18조. ' +
          'A buyer\'s portal cancel whose prorated refund awaits the seller (`source: subscription_cancel`, not statutory): 12:00 KST on the 5th business day after filing, but never after the end of the subscription period being refunded; holding does not stop it. ' +
          'The store\'s owners are mailed a reminder a day before. `null` for other requests, which wait for the seller.',
      ),
    ),
    processing: Type.Boolean({
      description: 'An approval is being processed: its refund is pending or its outcome unknown at the gateway (PG_REFUND_AMBIGUOUS). The request becomes `approved` once the refund is settled.',
    }),
    source: Type.String({ description: 'Where it was filed: `receipt` (the order\'s receipt page), `portal`, or `subscription_cancel` (with a buyer\'s immediate cancel in the portal; announced by `refund_request.created` like the others)' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'RefundRequest' },
);
export const RefundRequestPage = PageOf(RefundRequestSchema, 'RefundRequestPage');

const filters = {
  status: Type.Optional(RefundRequestStatusSchema),
  orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the requests of this order' })),
};
export const ListRefundRequestsQuery = PageQuery(filters);
export const AdminListRefundRequestsQuery = PageQuery({ mode: Type.Optional(ModeSchema), ...filters });

const Reason = (description: string) => Type.Optional(PlainText({ maxLength: MAX_REASON, description }));

export const ApproveBody = Obj(
  {
    amount: Type.Optional(
      Type.Integer({
        description:
          'Integer won to refund; default the amount asked for. Not greater than 0 → REFUND_AMOUNT_INVALID; above what is refundable now → REFUND_AMOUNT_EXCEEDS; ' +
          'different from the amount asked for → REFUND_AMOUNT_MISMATCH unless `confirmAmount` is true; less than asked on a statutory request → REFUND_STATUTORY_LOCKED.',
      }),
    ),
    confirmAmount: Type.Optional(Type.Boolean({ description: 'Set true to approve an `amount` different from the amount asked for' })),
    reason: Reason('Recorded as the decision reason and sent as the refund reason (default the buyer\'s reason)'),
  },
  { title: 'ApproveRefundRequestBody' },
);

export const DecisionBody = Obj({ reason: Reason('Required: missing or blank → REFUND_REASON_REQUIRED') }, { title: 'RefundRequestDecisionBody' });

export const ApproveResult = Obj(
  {
    refundRequest: RefundRequestSchema,
    refund: RefundSchema,
    order: OrderSchema,
  },
  { title: 'ApproveRefundRequestResult' },
);
