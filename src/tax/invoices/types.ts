/**
 * The electronic tax-invoice provider: what the service needs of it, whoever it is. Two implementations: `portone`
 * (PortOne's V2 B2B tax-invoice API through the official SDK `@portone/server-sdk`, `portone.ts`) and `simulator`
 * (test mode, nothing reaches 국세청). Every call answers `succeeded`, `failed` (the provider refused: nothing was
 * issued) or `unknown` (no answer: it may have been issued); none is made inside a transaction.
 *
 * Idempotency rests on the document key (PortOne's `supplierDocumentKey`): the provider refuses a second document
 * with the same key, and `find` looks a document up by it, so a retry after a crash or a lost answer asks first.
 */

export type Outcome<T> = { status: 'succeeded'; value: T } | { status: 'failed'; code: string; message: string } | { status: 'unknown'; message: string };

export interface Party {
  brn: string;
  name: string;
  representative: string;
  address?: string;
  email: string;
}

export interface InvoiceDocument {
  /** Unique per document and attempt: the provider's supplierDocumentKey. */
  documentKey: string;
  /** 작성일자, yyyy-MM-dd. */
  writeDate: string;
  supplier: Party;
  recipient: Party;
  totalAmount: number;
  supplyAmount: number;
  taxAmount: number;
  itemName: string;
  /** A 수정세금계산서: its reason and the original's document key (PortOne: supplierDocumentKey, keyType SUPPLIER). */
  modification?: { type: 'CANCELLATION_OF_CONTRACT' | 'CHANGE_IN_SUPPLY_COST'; originalDocumentKey: string };
}

export interface IssuedDocument {
  providerInvoiceId: string;
  /** The provider's status word (PortOne's B2bTaxInvoiceStatus: ISSUED, SENDING, SENDING_COMPLETED, ISSUE_FAILED …). */
  status: string;
  ntsApprovalNumber: string | null;
  pdfUrl: string | null;
  /** The provider's own refusal (a document it holds as ISSUE_FAILED): nothing was issued. */
  refused: boolean;
}

export interface TaxInvoiceProvider {
  readonly name: 'portone' | 'simulator';
  /** The document carrying `documentKey` of the supplier `supplierBrn`, or null when the provider has none. */
  find(documentKey: string, supplierBrn: string): Promise<Outcome<IssuedDocument | null>>;
  /** Issues the document at once (정발행, 영수). */
  issue(doc: InvoiceDocument): Promise<Outcome<IssuedDocument>>;
}
