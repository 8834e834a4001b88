-- 세금계산서 for business buyers (src/tax/invoices/): one row per document sent (or to be sent) to the electronic
-- tax-invoice provider (PortOne's B2B API, or the simulator in test mode). An order has at most one original
-- (kind 'original'); each refund after it is issued adds one 수정세금계산서 (kind 'amendment', negative amounts).
-- The row is written BEFORE the provider is called, with the document key it will carry (supplierDocumentKey), so a
-- crash between the call and the record looks the document up by that key instead of issuing it again.
-- See docs/manual/17-tax-invoices.md.
create table tax_invoices (
  id text primary key,
  order_id text not null references orders(id),
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  kind text not null check (kind in ('original', 'amendment')),
  -- amendments: the original they amend, the refund that caused them, and the 수정 사유 (PortOne's
  -- B2bTaxInvoiceModificationType: CANCELLATION_OF_CONTRACT = 계약의 해제, CHANGE_IN_SUPPLY_COST = 공급가액 변동)
  original_id text references tax_invoices(id),
  refund_id text,
  modification_type text,
  -- requested: the buyer asked, waiting for the payment or the seller; issuing: written before the provider call;
  -- issued: the provider answered with the issued document; failed: the provider refused (nothing issued);
  -- canceled: the request ended without a document (the order was refunded in full first, or the seller declined)
  status text not null check (status in ('requested', 'issuing', 'issued', 'failed', 'canceled')),
  requested_by text not null check (requested_by in ('buyer', 'seller', 'refund')),
  -- 공급받는자: 사업자등록번호 (10 digits, check digit verified), 상호, 대표자명, e-mail
  recipient_brn text not null,
  recipient_name text not null,
  recipient_representative text not null,
  recipient_email text not null,
  -- 합계 (VAT included), 공급가액, 세액: split by src/tax/model.ts splitVat (the VAT report's rule); negative for amendments
  total_amount integer,
  supply_amount integer,
  tax_amount integer,
  -- 작성일자 (yyyy-MM-dd, KST): the supply date (payment), or the refund's date for an amendment
  write_date text,
  -- The supplierDocumentKey of the current attempt ('<id>-<attempt>'); kept across retries of one attempt
  document_key text unique,
  attempt integer not null default 0,
  provider text,
  provider_invoice_id text,
  provider_status text,
  nts_approval_number text,
  -- The provider's refusal (code and message) or last unanswered call, shown to the seller
  provider_message text,
  pdf_url text,
  issued_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index tax_invoices_one_original on tax_invoices (order_id) where kind = 'original';
create unique index tax_invoices_one_per_refund on tax_invoices (refund_id) where kind = 'amendment';
create index tax_invoices_store on tax_invoices (store_id, mode, created_at desc);
