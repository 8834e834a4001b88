import { issueDeadline, kstDay } from './model';
import type { TaxInvoiceRow } from './repo';

/** The API's TaxInvoice (console, webhooks): the seller's own document, so the recipient's number is shown whole. */
export function invoiceView(r: TaxInvoiceRow) {
  return {
    id: r.id,
    orderId: r.order_id,
    mode: r.mode,
    kind: r.kind,
    status: r.status,
    requestedBy: r.requested_by,
    originalId: r.original_id,
    refundId: r.refund_id && !r.refund_id.startsWith('after:') ? r.refund_id : null,
    modificationType: r.modification_type as 'CANCELLATION_OF_CONTRACT' | 'CHANGE_IN_SUPPLY_COST' | null,
    recipient: { businessNumber: r.recipient_brn, companyName: r.recipient_name, representative: r.recipient_representative, email: r.recipient_email },
    totalAmount: r.total_amount,
    supplyAmount: r.supply_amount,
    taxAmount: r.tax_amount,
    writeDate: r.write_date,
    documentKey: r.document_key,
    provider: r.provider,
    providerInvoiceId: r.provider_invoice_id,
    providerStatus: r.provider_status,
    ntsApprovalNumber: r.nts_approval_number,
    providerMessage: r.provider_message,
    pdfUrl: r.pdf_url,
    issuedAt: r.issued_at ? r.issued_at.toISOString() : null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}
export type TaxInvoiceView = ReturnType<typeof invoiceView>;

/** The issue deadline for an order paid at `paidAt`, as a KST date (the receipt page and the dashboard say it). */
export const deadlineDay = (paidAt: Date): string => kstDay(new Date(issueDeadline(paidAt).getTime() - 1));
