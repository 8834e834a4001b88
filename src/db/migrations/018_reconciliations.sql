-- Daily reconciliation with the payment gateway (issue 20): one run compares a KST day of Toss's transactions
-- (approvals and cancels) with our orders and refunds of that store and mode, and keeps each difference it found.
create table reconciliations (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  -- the KST calendar day compared, YYYY-MM-DD
  day text not null,
  status text not null check (status in ('running', 'completed', 'failed')),
  -- 'job' (the daily scheduler), 'console' (POST /admin/v1/reconciliations or the dashboard), 'cli'
  source text not null check (source in ('job', 'console', 'cli')),
  gateway_transactions integer not null default 0,
  difference_count integer not null default 0,
  failure_code text,
  failure_message text,
  created_at timestamptz not null,
  completed_at timestamptz
);
create index reconciliations_list_idx on reconciliations (store_id, mode, created_at desc, id desc);
-- at most one run of a store, mode and day at a time; and the daily job makes at most one per day
create unique index reconciliations_running on reconciliations (store_id, mode, day) where status = 'running';
create unique index reconciliations_job_day on reconciliations (store_id, mode, day) where source = 'job';

create table reconciliation_differences (
  reconciliation_id text not null references reconciliations(id) on delete cascade,
  seq integer not null,
  -- unknown_here: approved at the gateway, no paid order here; missing_at_toss: paid here, no approval at the gateway;
  -- amount_differs: both, different amounts; refunds_differ: the day's refunds here and cancels there do not add up
  kind text not null check (kind in ('unknown_here', 'missing_at_toss', 'amount_differs', 'refunds_differ')),
  order_id text not null,
  payment_key text,
  our_amount bigint,
  gateway_amount bigint,
  primary key (reconciliation_id, seq)
);
