import type { AppDeps } from '../../deps';
import type { Mode } from '../../platform/tables';
import { MESSAGES } from '../../platform/messages';
import { portoneProvider } from './portone';

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

/**
 * The provider for a mode: test mode uses the simulator unless TAX_INVOICE_PROVIDER=portone (then PortOne in its
 * own test mode); live mode uses PortOne, or none when it is not configured (the simulator never issues a live one).
 */
export function taxInvoiceProviderFor(deps: Pick<AppDeps, 'config'>, mode: Mode): TaxInvoiceProvider | null {
  const c = deps.config;
  if (c.taxInvoiceProvider === 'portone' && c.portoneB2bApiSecret) return portoneProvider({ secret: c.portoneB2bApiSecret, baseUrl: c.portoneB2bApiBaseUrl, test: mode === 'test' });
  return mode === 'test' ? simulatorProvider : null;
}

/**
 * The simulator: issues at once with made-up numbers, remembers documents by key in this process. A recipient e-mail
 * at `fail.test` is refused (to try the seller's failed state in test mode).
 */
const simulated = new Map<string, IssuedDocument>();
export const simulatorProvider: TaxInvoiceProvider = {
  name: 'simulator',
  async find(documentKey) {
    return { status: 'succeeded', value: simulated.get(documentKey) ?? null };
  },
  async issue(doc) {
    const had = simulated.get(doc.documentKey);
    if (had) return { status: 'failed', code: 'B2B_TAX_INVOICE_SUPPLIER_DOCUMENT_KEY_ALREADY_USED', message: 'document key already used' };
    if (doc.recipient.email.endsWith('@fail.test')) return { status: 'failed', code: 'SIMULATED_REFUSAL', message: MESSAGES.checkout.taxInvoiceSimulatedRefusal };
    const n = String(simulated.size + 1).padStart(8, '0');
    const issued: IssuedDocument = { providerInvoiceId: `sim-ti-${doc.documentKey}`, status: 'ISSUED', ntsApprovalNumber: `${doc.writeDate.replace(/-/g, '')}-41000000-${n}`, pdfUrl: null, refused: false };
    simulated.set(doc.documentKey, issued);
    return { status: 'succeeded', value: issued };
  },
};
