import type { AppDeps } from '../../deps';
import type { Mode } from '../../platform/tables';
import { MESSAGES } from '../../platform/messages';
import { portoneProvider } from './portone';

export type { Outcome, Party, InvoiceDocument, IssuedDocument, TaxInvoiceProvider } from './types';
import type { IssuedDocument, TaxInvoiceProvider } from './types';

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
