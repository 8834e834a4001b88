import { Type } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQueryProps } from '../../platform/http/schemas';

const STATUS_DOC =
  '`requested`: asked, waiting for the payment (a 가상계좌: the deposit) or for the seller; `issuing`: sent (or about to be) to the provider, its answer not recorded yet ' +
  '(a retry asks the provider for the same document key first, so it is never issued twice); `issued`: the provider issued it; `failed`: the provider refused ' +
  '(`providerMessage`), nothing was issued, the seller may issue it again; `canceled`: ended without a document (refunded in full before it was issued).';

export const TaxInvoiceStatusSchema = Type.Union(['requested', 'issuing', 'issued', 'failed', 'canceled'].map((s) => Type.Literal(s)), { description: STATUS_DOC });

export const TaxInvoiceSchema = Obj(
  {
    id: Type.String({ description: '`ti_…`' }),
    orderId: Type.String(),
    mode: ModeSchema,
    kind: Type.Union([Type.Literal('original'), Type.Literal('amendment')], { description: '`original`: the order\'s 세금계산서; `amendment`: a 수정세금계산서 a refund caused' }),
    status: TaxInvoiceStatusSchema,
    requestedBy: Type.Union([Type.Literal('buyer'), Type.Literal('seller'), Type.Literal('refund')]),
    originalId: Nullable(Type.String(), { description: 'An amendment\'s original' }),
    refundId: Nullable(Type.String(), { description: 'The refund that caused an amendment' }),
    modificationType: Nullable(Type.Union([Type.Literal('CANCELLATION_OF_CONTRACT'), Type.Literal('CHANGE_IN_SUPPLY_COST')]), {
      description: '수정 사유 (부가가치세법 시행령 제70조 ①): `CANCELLATION_OF_CONTRACT` 계약의 해제 (a full refund), `CHANGE_IN_SUPPLY_COST` 공급가액 변동 (a partial refund)',
    }),
    recipient: Obj({
      businessNumber: Type.String({ description: '공급받는자 사업자등록번호, 10 digits' }),
      companyName: Type.String({ description: '상호' }),
      representative: Type.String({ description: '대표자명' }),
      email: Type.String(),
    }),
    totalAmount: Nullable(Type.Integer(), { description: '합계 (VAT included), won; negative for an amendment; null until sent' }),
    supplyAmount: Nullable(Type.Integer(), { description: '공급가액 = total − tax' }),
    taxAmount: Nullable(Type.Integer(), { description: '세액 = round(|total| × 10 / 110), the VAT report\'s rule' }),
    writeDate: Nullable(Type.String({ description: '작성일자 (KST, yyyy-MM-dd): the payment day, or the refund day for an amendment' })),
    documentKey: Nullable(Type.String({ description: 'The provider\'s supplierDocumentKey of the current attempt' })),
    provider: Nullable(Type.String({ description: '`portone` or `simulator`' })),
    providerInvoiceId: Nullable(Type.String()),
    providerStatus: Nullable(Type.String({ description: 'The provider\'s own status (PortOne B2bTaxInvoiceStatus) or refusal code' })),
    ntsApprovalNumber: Nullable(Type.String({ description: '국세청 승인번호' })),
    providerMessage: Nullable(Type.String({ description: 'The provider\'s refusal, or the last unanswered call' })),
    pdfUrl: Nullable(Type.String({ description: 'The provider\'s PDF link, when it gave one' })),
    issuedAt: Nullable(DateTime()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'TaxInvoice' },
);

export const TaxInvoiceListQuery = Obj({ ...PageQueryProps, mode: Type.Optional(ModeSchema), status: Type.Optional(TaxInvoiceStatusSchema) });
export const TaxInvoicePage = PageOf(TaxInvoiceSchema, 'TaxInvoicePage');
export const ModeQuery = Obj({ mode: Type.Optional(ModeSchema) });
export const ModeBody = Obj({ mode: ModeSchema }, { title: 'IssueTaxInvoiceRequest' });
export const RequestTaxInvoiceBody = Obj({
  mode: ModeSchema,
  businessNumber: Type.String({ maxLength: 20, description: '공급받는자 사업자등록번호 (dashes allowed); its check digit is verified' }),
  companyName: Type.String({ maxLength: 200 }),
  representative: Type.String({ maxLength: 100 }),
  email: Type.String({ maxLength: 254 }),
}, { title: 'RequestTaxInvoiceRequest' });
