-- migration: no-transaction
-- The filtered lists of a big store (issue 43, `npm run bigstore`): orders by status (API, console and dashboard),
-- subscriptions by status, and events by type, each newest first as the lists read them. Without these a filtered page
-- walks every row of the store's list index and counts the matches among them (a store with 1,000,000 orders read all
-- of them to show the 5% that were refunded); with them the page and its total read only the matching rows.
-- Built CONCURRENTLY, outside a transaction: orders and events take every payment's writes, and a plain CREATE INDEX
-- would hold them for the whole build. A build that failed halfway leaves an invalid index; dropping it first makes a
-- rerun finish the job.
drop index concurrently if exists orders_status_list_idx;
create index concurrently orders_status_list_idx on orders (store_id, mode, status, created_at desc, id desc);
drop index concurrently if exists subscriptions_status_list_idx;
create index concurrently subscriptions_status_list_idx on subscriptions (store_id, mode, status, started_at desc, id desc);
drop index concurrently if exists events_type_list_idx;
create index concurrently events_type_list_idx on events (store_id, mode, type, created_at desc, id desc);
