import { Type } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQueryProps } from '../platform/http/schemas';
import { VAT_CATEGORIES } from './model';

const CATEGORY_DOC =
  '`tax_invoice`: 세금계산서 발급분 (the order\'s 세금계산서 was issued; its refunds, with their 수정세금계산서, land here too); `card`: 신용카드 — card payments and easy pays ' +
  '(카카오페이, 네이버페이, 토스페이: the pay company issues card-equivalent evidence); `cash_receipt`: 현금영수증 issued for a 계좌이체 or 가상계좌 sale; ' +
  '`other`: 기타 매출, a 계좌이체 or 가상계좌 sale without a 현금영수증; `foreign`: sales in a foreign currency, kept apart: PayPal orders (charged in US dollars; their figures are the won amounts of the orders at the store\'s fixed rate). An overseas-issued card (`foreign_card`) is charged in won and counts as `card`.';

export const VatCategorySchema = Type.Union(VAT_CATEGORIES.map((c) => Type.Literal(c)), { description: CATEGORY_DOC });

const periodProps = {
  mode: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')], { description: '`live` or `test` (default `test`, as the console\'s other lists); the two are never mixed' })),
  period: Type.Optional(
    Type.String({ maxLength: 10, description: 'A 과세기간 (`2026-1`: January–June, `2026-2`: July–December) or a quarter (`2026-Q1` … `2026-Q4`; Q1 and Q3 are the 예정신고 periods). Not with `from`/`to`.', examples: ['2026-2'] }),
  ),
  from: Type.Optional(Type.String({ maxLength: 10, description: 'First KST day included (YYYY-MM-DD); with `to`, at most 366 days apart', examples: ['2026-07-01'] })),
  to: Type.Optional(Type.String({ maxLength: 10, description: 'First KST day NOT included (YYYY-MM-DD)', examples: ['2026-10-01'] })),
};
export const VatReportQuery = Obj(periodProps);
export const VatLinesQuery = Obj({
  ...PageQueryProps,
  ...periodProps,
  category: Type.Optional(VatCategorySchema),
  kind: Type.Optional(Type.Union([Type.Literal('sale'), Type.Literal('refund')], { description: 'Only sales or only refunds' })),
});

const Signed = (description: string) => Type.Integer({ description });
export const FigureSchema = Obj(
  {
    count: Type.Integer({ minimum: 0, description: 'Sales or refunds counted' }),
    total: Signed('합계 (공급대가): VAT included, won; refunds negative'),
    supplyAmount: Signed('공급가액 = total − vat'),
    vat: Signed('세액: the sum of each line\'s round(|total| × 10 / 110), signed'),
  },
  { title: 'VatFigure' },
);
// sales: paid in the period; refunds: completed in the period (negative), whenever their order was paid; net = sales + refunds.
const groupProps = { sales: FigureSchema, refunds: FigureSchema, net: FigureSchema };
export const PeriodSchema = Obj(
  {
    kind: Type.Union([Type.Literal('tax_period'), Type.Literal('quarter'), Type.Literal('custom')]),
    code: Nullable(Type.String(), { description: '`2026-2`, `2026-Q3`, or null for a custom range' }),
    from: Type.String({ format: 'date', description: 'First KST day included' }),
    to: Type.String({ format: 'date', description: 'First KST day not included' }),
    label: Type.String({ description: 'Korean label' }),
  },
  { title: 'VatPeriod' },
);
export const VatReportSchema = Obj(
  {
    mode: ModeSchema,
    period: PeriodSchema,
    categories: Type.Array(Obj({ category: VatCategorySchema, ...groupProps }, { title: 'VatCategoryFigures' }), { description: 'Every category, in the 신고서\'s order, zeros included' }),
    cardAndCashReceipt: Obj(groupProps, { title: 'VatGroupFigures', description: '신용카드·현금영수증 발행분: `card` + `cash_receipt`' }),
    overall: Obj(groupProps, { title: 'VatOverallFigures', description: 'All categories' }),
    months: Type.Array(Obj({ month: Type.String({ description: 'KST month, YYYY-MM' }), net: FigureSchema }, { title: 'VatMonth' }), { description: 'Net figures by KST month' }),
  },
  { title: 'VatReport' },
);
export const VatLineSchema = Obj(
  {
    kind: Type.Union([Type.Literal('sale'), Type.Literal('refund')]),
    at: DateTime('When it counts: the payment (a 가상계좌: its deposit) or the refund\'s completion'),
    date: Type.String({ format: 'date', description: 'That instant\'s KST day' }),
    orderId: Type.String(),
    refundId: Nullable(Type.String(), { description: 'The refund (`kind: refund`); null for a sale' }),
    method: Type.String({ description: 'The order\'s payment method (card, kakao_pay, naver_pay, toss, transfer, virtual_account)' }),
    category: VatCategorySchema,
    total: Signed('합계, negative for a refund'),
    supplyAmount: Signed('공급가액'),
    vat: Signed('세액'),
  },
  { title: 'VatLine' },
);
export const VatLinePage = PageOf(VatLineSchema, 'VatLinePage');
/** The CSV answer, documented as `text/csv` (not a JSON string). */
export const VatCsvResponse = {
  description: 'The lines as CSV: UTF-8 with a byte-order mark, CRLF lines, one row per sale or refund',
  content: { 'text/csv': { schema: Type.String({ description: 'CSV text' }) } },
};
