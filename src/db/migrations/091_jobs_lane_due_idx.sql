-- migration: no-transaction
-- The due jobs of each lane, oldest first: the claim walks the lanes that have work (one index probe per lane) and
-- takes each lane's oldest jobs in turn (src/jobs/repo.ts lockDueJobs), so its cost follows the number of lanes and the
-- batch size, not the backlog. Partial on pending and running jobs, like jobs_due_idx: done jobs are never read here.
-- Built CONCURRENTLY, outside a transaction: jobs keeps every done job, and a plain CREATE INDEX would stop every
-- enqueue (checkouts, refunds, notifications) until the build ends. A failed build's invalid index is dropped first.
drop index concurrently if exists jobs_lane_due_idx;
create index concurrently jobs_lane_due_idx on jobs (lane, run_at) where lane is not null and status in ('pending', 'running');
