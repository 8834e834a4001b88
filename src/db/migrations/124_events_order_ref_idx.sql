-- migration: no-transaction
-- The events of one order (src/webhooks/events-repo.ts eventsOfOrder, the dashboard's order detail): an event names its
-- order as `data.id` (order.paid), `data.order.id` (order.refunded) or `data.orderId` (refund requests). Without
-- indexes on those paths the detail page filtered every event of the store (2,000,000 in `npm run bigstore`: seconds).
-- One partial index per path, so the three arms of the query's OR combine in a bitmap; the partial ones hold only the
-- events that have the path. Built CONCURRENTLY, outside a transaction: events take every payment's and refund's
-- writes. A failed build's invalid index is dropped first.
drop index concurrently if exists events_data_id_idx;
create index concurrently events_data_id_idx on events ((data->>'id'));
drop index concurrently if exists events_data_order_id_idx;
create index concurrently events_data_order_id_idx on events ((data->'order'->>'id')) where data->'order'->>'id' is not null;
drop index concurrently if exists events_data_order_ref_idx;
create index concurrently events_data_order_ref_idx on events ((data->>'orderId')) where data->>'orderId' is not null;
