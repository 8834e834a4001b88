-- migration: no-transaction
-- Orders by their gateway payment key, within a store and mode: a Toss notification is accepted only for a payment of
-- ours (src/gateway/accept.ts), and that check runs for every notification, forged ones included (hundreds a second
-- in a flood), so it must not scan the orders table.
-- Built CONCURRENTLY, outside a transaction (see Migration.transactional in src/db/database.ts): orders is the biggest
-- table, and a plain CREATE INDEX would block every checkout's order insert until the build ends. A build that failed
-- halfway leaves an invalid index; dropping it first makes a rerun finish the job.
drop index concurrently if exists orders_payment_key_idx;
create index concurrently orders_payment_key_idx on orders (provider_payment_key, store_id, mode) where provider_payment_key is not null;
