-- migration: no-transaction
-- The licenses of a page of orders (src/orders/repo.ts licensesOf: `order_id in (…)`, every order list and detail of the
-- API and the dashboard). licenses_order_original_idx is partial (`rotated_from is null`), so it cannot answer a lookup
-- that also wants the reissued keys, and each order page read the whole licenses table (`npm run bigstore`'s EXPLAIN).
-- Built CONCURRENTLY, outside a transaction: licenses are written by every paid order of a licensed product. A failed
-- build's invalid index is dropped first.
drop index concurrently if exists licenses_order_idx;
create index concurrently licenses_order_idx on licenses (order_id);
