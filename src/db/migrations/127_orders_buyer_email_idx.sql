-- migration: no-transaction
-- The dashboard's order search by a whole buyer e-mail (issue 43, src/orders/repo.ts ordersQuery): an exact match on
-- lower(buyer_email), found by this index instead of a substring scan of every order of the store (a big store has
-- millions). A part of an address or a name is still a substring search. Newest first, as the list reads them.
-- Built CONCURRENTLY, outside a transaction: orders take every payment's writes, and a plain CREATE INDEX would hold them
-- for the whole build. A build that failed halfway leaves an invalid index; dropping it first makes a rerun finish it.
drop index concurrently if exists orders_buyer_email_idx;
create index concurrently orders_buyer_email_idx on orders (store_id, mode, lower(buyer_email), created_at desc, id desc);
