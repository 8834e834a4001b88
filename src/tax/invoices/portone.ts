import type { B2bTaxInvoice } from '@portone/server-sdk/b2b/taxInvoice';
import type { InvoiceDocument, IssuedDocument, Outcome, Party, TaxInvoiceProvider } from './types';

/**
 * PortOne's V2 B2B tax-invoice API (paths `/b2b/tax-invoices/...` of PortOne's published OpenAPI) through the official
 * SDK's `TaxInvoiceClient`. Chosen over Popbill because that OpenAPI documents every request, answer and error, so the
 * tests' fake (test/tax/fake-portone-b2b.ts) is built from PortOne's own text; the SDK is already our dependency.
 *
 *   issue   POST /b2b/tax-invoices/issue-immediately (즉시 정발행; a 수정세금계산서 carries `modification`)
 *   find    GET  /b2b/tax-invoices/{supplierDocumentKey}?brn=…&taxInvoiceKeyType=SUPPLIER
 *   pdf     GET  /b2b/tax-invoices/{id}/pdf-download-url (after an issue; a missing link is no failure)
 *
 * Errors: the SDK throws with PortOne's error body in `data` (`{ type, message }`). A 4xx type is a refusal (nothing
 * issued) except B2B_TAX_INVOICE_SUPPLIER_DOCUMENT_KEY_ALREADY_USED, which means an earlier call with this key got
 * through: the document is looked up instead. A 5xx (B2B_EXTERNAL_SERVICE), a network error or a timeout is unknown.
 */

const TIMEOUT_MS = 15_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('PortOne did not answer in time')), TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
}

/** PortOne's error type (its `data.type`), or null for a network error or timeout. */
function errorType(err: unknown): string | null {
  const data = (err as { data?: { type?: unknown } } | null)?.data;
  return data && typeof data.type === 'string' ? data.type : null;
}
const errorMessage = (err: unknown): string => String((err as { data?: { message?: unknown } })?.data?.message ?? (err as Error)?.message ?? 'error').slice(0, 300);

/** Error types PortOne answers with a 5xx: nothing is known of the document. */
const UNKNOWN_TYPES = new Set(['B2B_EXTERNAL_SERVICE']);

const company = (p: Party) => ({ brn: p.brn, name: p.name, representativeName: p.representative, ...(p.address ? { address: p.address } : {}), contact: { email: p.email } });

/** ISSUE_FAILED and the refused/cancelled states: PortOne holds a document, but none was issued. */
const REFUSED = new Set(['ISSUE_FAILED', 'DRAFT_FAILED', 'REQUEST_FAILED', 'REQUEST_REFUSED', 'ISSUANCE_CANCELLED', 'REQUEST_CANCELLED']);

export function portoneProvider(init: { secret: string; baseUrl: string; test: boolean }): TaxInvoiceProvider {
  // The SDK's client (about 8 MB of modules) is loaded on the first call, not at startup: most stores issue no
  // 세금계산서 through PortOne, and the embedded server's idle memory is held to a budget (test/platform/embedded-memory).
  let loaded: ReturnType<typeof import('@portone/server-sdk/b2b/taxInvoice').TaxInvoiceClient> | null = null;
  const sdk = async () => (loaded ??= (await import('@portone/server-sdk/b2b/taxInvoice')).TaxInvoiceClient({ secret: init.secret, baseUrl: init.baseUrl }));
  const test = init.test;

  async function answer(doc: B2bTaxInvoice, brn: string): Promise<IssuedDocument> {
    let pdfUrl: string | null = null;
    if (!REFUSED.has(doc.status)) {
      try {
        pdfUrl = (await withTimeout((await sdk()).getB2bTaxInvoicePdfDownloadUrl({ taxInvoiceKey: doc.id, taxInvoiceKeyType: 'TAX_INVOICE_ID', brn, test }))).url;
      } catch {
        pdfUrl = null;
      }
    }
    return { providerInvoiceId: doc.id, status: doc.status, ntsApprovalNumber: doc.ntsApprovalNumber ?? null, pdfUrl, refused: REFUSED.has(doc.status) };
  }

  const provider: TaxInvoiceProvider = {
    name: 'portone',
    async find(documentKey, supplierBrn) {
      try {
        const doc = await withTimeout((await sdk()).getB2bTaxInvoice({ taxInvoiceKey: documentKey, taxInvoiceKeyType: 'SUPPLIER', brn: supplierBrn, test }));
        return { status: 'succeeded', value: await answer(doc, supplierBrn) };
      } catch (err) {
        const type = errorType(err);
        if (type === 'B2B_TAX_INVOICE_NOT_FOUND') return { status: 'succeeded', value: null };
        return { status: 'unknown', message: type ? `${type}: ${errorMessage(err)}` : errorMessage(err) };
      }
    },
    async issue(doc: InvoiceDocument): Promise<Outcome<IssuedDocument>> {
      try {
        const res = await withTimeout(
          (await sdk()).issueB2bTaxInvoiceImmediately({
            test,
            taxInvoice: {
              taxationType: 'TAXABLE',
              issuanceType: 'NORMAL',
              writeDate: doc.writeDate,
              // 영수: the buyer has paid (a 가상계좌 is issued at its deposit)
              purposeType: 'RECEIPT',
              totalSupplyAmount: doc.supplyAmount,
              totalTaxAmount: doc.taxAmount,
              totalAmount: doc.totalAmount,
              cashAmount: doc.totalAmount,
              supplierDocumentKey: doc.documentKey,
              supplier: company(doc.supplier),
              recipient: company(doc.recipient),
              items: [{ purchaseDate: doc.writeDate, name: doc.itemName.slice(0, 100), supplyCostAmount: doc.supplyAmount, taxAmount: doc.taxAmount }],
            },
            ...(doc.modification ? { modification: { type: doc.modification.type, taxInvoiceKey: doc.modification.originalDocumentKey, taxInvoiceKeyType: 'SUPPLIER', brn: doc.supplier.brn } } : {}),
          }),
        );
        const value = await answer(res.taxInvoice, doc.supplier.brn);
        return value.refused ? { status: 'failed', code: value.status, message: `PortOne: ${value.status}` } : { status: 'succeeded', value };
      } catch (err) {
        const type = errorType(err);
        if (type === 'B2B_TAX_INVOICE_SUPPLIER_DOCUMENT_KEY_ALREADY_USED') {
          const found = await provider.find(doc.documentKey, doc.supplier.brn);
          if (found.status === 'succeeded' && found.value) return found.value.refused ? { status: 'failed', code: found.value.status, message: `PortOne: ${found.value.status}` } : { status: 'succeeded', value: found.value };
          return { status: 'unknown', message: 'document key in use but the document was not found' };
        }
        if (!type || UNKNOWN_TYPES.has(type)) return { status: 'unknown', message: type ? `${type}: ${errorMessage(err)}` : errorMessage(err) };
        return { status: 'failed', code: type, message: errorMessage(err) };
      }
    },
  };
  return provider;
}
