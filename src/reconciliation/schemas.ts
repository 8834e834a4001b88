import { Type } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery, Won } from '../platform/http/schemas';

export const DifferenceKindSchema = Type.Union([Type.Literal('unknown_here'), Type.Literal('missing_at_toss'), Type.Literal('amount_differs'), Type.Literal('refunds_differ')], {
  description:
    '`unknown_here`: Toss approved a payment that no order here holds (paid at Toss but unknown here); `missing_at_toss`: an order here was paid that day but Toss lists no approval of it; ' +
    '`amount_differs`: both have the payment, for different amounts; `refunds_differ`: what was refunded here of a payment that day and what Toss canceled of it that day differ ' +
    '(e.g. a cancel made in Toss\'s merchant admin that never reached this service)',
});

export const DifferenceSchema = Obj(
  {
    kind: DifferenceKindSchema,
    orderId: Type.String({ description: 'Our order id, or Toss\'s `orderId` when no order here holds the payment' }),
    paymentKey: Nullable(Type.String(), { description: 'Toss\'s paymentKey' }),
    ourAmount: Nullable(Won(), { description: 'Our side: the order\'s amount (approvals) or the day\'s refunded sum (refunds_differ); null when we have nothing' }),
    gatewayAmount: Nullable(Won(), { description: 'Toss\'s side: the approved amount, or the day\'s canceled sum; null when Toss lists nothing' }),
  },
  { title: 'ReconciliationDifference' },
);

const props = {
  id: Type.String({ description: 'Reconciliation id (`rcn_…`)' }),
  mode: ModeSchema,
  date: Type.String({ format: 'date', description: 'The KST calendar day compared (YYYY-MM-DD)' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')], {
    description: '`running` until the comparison is done; `completed` (differences are final); `failed` (Toss refused or did not answer the transactions query: see `failure`, start another)',
  }),
  source: Type.Union([Type.Literal('job'), Type.Literal('console'), Type.Literal('cli')], { description: '`job`: the daily schedule; `console`: started here or on the dashboard; `cli`: `commerce reconcile`' }),
  gatewayTransactions: Type.Integer({ minimum: 0, description: 'Transactions (approvals and cancels) Toss listed for the day' }),
  differenceCount: Type.Integer({ minimum: 0 }),
  failure: Nullable(Obj({ code: Type.String(), message: Type.String() }), { description: 'Why a `failed` run failed (Toss\'s code, or GATEWAY_UNAVAILABLE / NOT_CONFIGURED); null otherwise' }),
  createdAt: DateTime(),
  completedAt: Nullable(DateTime(), { description: 'When it completed or failed; null while running' }),
};

export const ReconciliationSchema = Obj(props, { title: 'Reconciliation' });
export const ReconciliationWithDifferencesSchema = Obj(
  { ...props, differences: Type.Array(DifferenceSchema, { description: 'Empty while running' }) },
  { title: 'ReconciliationWithDifferences' },
);
export const ReconciliationPage = PageOf(ReconciliationSchema, 'ReconciliationPage');
export const ReconciliationListQuery = PageQuery({ mode: Type.Optional(ModeSchema) });
export const CreateReconciliationBody = Obj(
  {
    mode: ModeSchema,
    date: Type.String({ minLength: 10, maxLength: 10, description: 'KST calendar day to compare (YYYY-MM-DD), today at the latest' }),
  },
  { title: 'CreateReconciliationRequest' },
);
