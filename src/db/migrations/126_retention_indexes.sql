-- migration: no-transaction
-- Retention of jobs and mail_outbox (issue 43): the hourly sweeps (src/jobs/retention.ts, src/mail/retention.ts) delete
-- finished rows older than their limit, 500 a statement, oldest first by their last change. Partial indexes on the
-- finished rows only find them without reading the whole table (both grew without bound until now) and are never
-- touched by the queue's claims. Built CONCURRENTLY, outside a transaction, so enqueues and mail writes go on during the
-- build; a failed build's invalid index is dropped first.
drop index concurrently if exists jobs_finished_idx;
create index concurrently jobs_finished_idx on jobs (status, updated_at) where status in ('done', 'failed');
drop index concurrently if exists mail_outbox_finished_idx;
create index concurrently mail_outbox_finished_idx on mail_outbox (updated_at) where status in ('sent', 'captured', 'failed');
