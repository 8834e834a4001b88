-- migration: no-transaction
-- The console's subscription charges, newest first (`GET /admin/v1/subscription-charges`): without an index on the
-- order it reads, every page sorted all charges of every store (`npm run bigstore`'s EXPLAIN: a sequential scan).
-- Built CONCURRENTLY, outside a transaction: renewals write charges. A failed build's invalid index is dropped first.
drop index concurrently if exists subscription_charges_list_idx;
create index concurrently subscription_charges_list_idx on subscription_charges (created_at desc, id desc);
