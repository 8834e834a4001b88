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

const KeyPairSchema = Type.Union([Type.Literal('payments'), Type.Literal('billing')], {
  description: 'The Toss key pair (MID) the record was read under: `payments` (the first pair) or `billing` (the 자동결제 MID\'s pair)',
});
const totals = {
  count: Type.Integer({ minimum: 0, description: 'Settlement records' }),
  amount: Type.Integer({ description: 'Sales settled (a cancel\'s record counts as Toss signs it)' }),
  fee: Type.Integer({ description: 'What Toss kept: `feeSupplyAmount` + `feeVat`' }),
  feeSupplyAmount: Type.Integer({ description: 'The fee before VAT (공급가액)' }),
  feeVat: Type.Integer({ description: 'VAT on the fee (부가세)' }),
  payOutAmount: Type.Integer({ description: 'What Toss pays out: `amount` − `fee`' }),
};
export const SettlementRecordSchema = Obj(
  {
    keyPair: KeyPairSchema,
    paymentKey: Type.String(),
    transactionKey: Nullable(Type.String()),
    orderId: Type.String({ description: 'Toss\'s orderId (our order id)' }),
    method: Nullable(Type.String({ description: 'Toss\'s method word (카드, 간편결제, …)' })),
    amount: Type.Integer(),
    fee: Type.Integer(),
    feeSupplyAmount: Type.Integer(),
    feeVat: Type.Integer(),
    payOutAmount: Type.Integer(),
    soldDate: Type.String({ format: 'date', description: '정산 매출일: the day the sale counts for' }),
    paidOutDate: Type.String({ format: 'date', description: '정산 지급일: the day Toss pays it out' }),
    canceled: Type.Boolean({ description: 'A cancel\'s record' }),
  },
  { title: 'SettlementRecord' },
);
export const SettlementsReportSchema = Obj(
  {
    status: Type.Union([Type.Literal('read'), Type.Literal('unavailable')], {
      description: '`read`: the records are all Toss settles for the day; `unavailable`: Toss refused or did not answer the settlements query (see `failure`; the comparison still completed)',
    }),
    failure: Nullable(Type.String()),
    totals: Obj(totals, { title: 'SettlementTotals' }),
    payouts: Type.Array(Obj({ paidOutDate: Type.String({ format: 'date' }), keyPair: KeyPairSchema, ...totals }, { title: 'SettlementPayout' }), {
      description: 'The records grouped by payout day and MID: one deposit each on the seller\'s bank statement',
    }),
    records: Type.Array(SettlementRecordSchema),
  },
  {
    title: 'SettlementsReport',
    description:
      'What Toss settles for the day compared (GET /v1/settlements by 정산 매출일, under each MID of the mode): what it will pay out, when, ' +
      'and what it kept (fee and the VAT on it)',
  },
);

export const ReconciliationSchema = Obj(props, { title: 'Reconciliation' });
export const ReconciliationWithDifferencesSchema = Obj(
  {
    ...props,
    differences: Type.Array(DifferenceSchema, { description: 'Empty while running' }),
    settlements: Nullable(SettlementsReportSchema, { description: 'Toss\'s settlements of the day; null while running, for a failed run, or a run made before they were read' }),
  },
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
