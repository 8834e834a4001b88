-- The 부가세 신고 report (src/tax/) reads a store's sales by payment time and its refunds by refund time for one
-- period of one mode. Without these a quarter's report scans every order and refund of the store.
-- See docs/manual/16-vat-report.md.
create index orders_vat_sales_idx on orders (store_id, mode, paid_at) where status in ('paid', 'refunded');
create index order_refunds_vat_idx on order_refunds (store_id, mode, refunded_at) where status = 'succeeded';
