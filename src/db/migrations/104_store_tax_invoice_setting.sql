-- How a store issues a 세금계산서 a buyer asked for (src/tax/invoices/): 'manual' (the seller issues it from the
-- dashboard or the console API, within the legal deadline) or 'auto' (issued as soon as the order is paid, a
-- 가상계좌 at its deposit). See docs/manual/17-tax-invoices.md.
alter table stores add column tax_invoice_issue text not null default 'manual' check (tax_invoice_issue in ('manual', 'auto'));
