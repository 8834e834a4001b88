import type { Mode } from '../../platform/tables';

/** One 세금계산서 document (migration 103): an order's original or a refund's 수정세금계산서. */
export interface TaxInvoicesTable {
  id: string;
  order_id: string;
  store_id: string;
  mode: Mode;
  kind: 'original' | 'amendment';
  original_id: string | null;
  refund_id: string | null;
  modification_type: string | null;
  status: 'requested' | 'issuing' | 'issued' | 'failed' | 'canceled';
  requested_by: 'buyer' | 'seller' | 'refund';
  recipient_brn: string;
  recipient_name: string;
  recipient_representative: string;
  recipient_email: string;
  total_amount: number | null;
  supply_amount: number | null;
  tax_amount: number | null;
  write_date: string | null;
  document_key: string | null;
  attempt: number;
  provider: string | null;
  provider_invoice_id: string | null;
  provider_status: string | null;
  nts_approval_number: string | null;
  provider_message: string | null;
  pdf_url: string | null;
  issued_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface TaxInvoiceTables {
  tax_invoices: TaxInvoicesTable;
}
