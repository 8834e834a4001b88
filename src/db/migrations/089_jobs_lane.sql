-- The lane a job is claimed in: jobs of one lane (e.g. one store and mode's Toss notification lookups) take turns
-- with every other lane in each claim, so one store's burst cannot hold another store's work behind it
-- (src/jobs/repo.ts lockDueJobs). Null: the job is in the default lane, which takes its turn like any other.
-- A nullable column without a default is a catalog-only change (no table rewrite); the short lock it needs is not
-- waited for behind a long transaction on jobs for more than 5 s (the migration fails and is retried at the next start
-- rather than queueing every worker's claim behind it).
set local lock_timeout = '5s';
alter table jobs add column lane text;
