-- migration: no-transaction
-- The events of one order (src/webhooks/events-repo.ts eventsOfOrder, the dashboard's order detail): an event names its
-- order as `data.id` (order.paid), `data.order.id` (order.refunded) or `data.orderId` (refund requests). Without
-- indexes on those paths the detail page filtered every event of the store (200,000 in `npm run bigstore -- --orders
-- 100000`: 0.4 s; 2,000,000 at a million orders). One index per path, so the three arms of the query's OR combine in a
-- bitmap. Not partial: PostgreSQL takes no statistics from a partial index's expression, so with partial indexes the
-- planner guessed 1,000 matches per arm and walked the events by time instead (seen in EXPLAIN on the filled store).
-- Built CONCURRENTLY, outside a transaction: events take every payment's and refund's writes. A failed build's
-- invalid index is dropped first.
drop index concurrently if exists events_data_id_idx;
create index concurrently events_data_id_idx on events ((data->>'id'));
drop index concurrently if exists events_data_order_id_idx;
create index concurrently events_data_order_id_idx on events ((data->'order'->>'id'));
drop index concurrently if exists events_data_order_ref_idx;
create index concurrently events_data_order_ref_idx on events ((data->>'orderId'));
