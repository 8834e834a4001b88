-- Refunds (issue 9): the refund record created in 002 (order_refunds, ids 'rf_') gains what the engine needs,
-- refund requests get their table, and settlement rounds close paid orders into payout records.
-- orders.refunded_amount / refunded_at / settlement_id already exist (002): refunded_amount stays null until the
-- first refund succeeds (the documented Order contract), and the engine adds with coalesce(refunded_amount, 0).

-- ---- refund records ----
alter table order_refunds add column currency text not null default 'KRW' check (currency = 'KRW');
-- a full refund revokes the order's licenses unless the seller asked to keep them
alter table order_refunds add column keep_licenses boolean not null default false;
-- who asked: the public API, the seller console, an approved refund request, an immediate subscription cancel
alter table order_refunds add column source text not null default 'api'
  check (source in ('api', 'console', 'refund_request', 'subscription_cancel'));
-- the gateway's code when it refused (failed), or our flag when reconciliation could not match the gateway's state;
-- the existing `error` column holds the matching message
alter table order_refunds add column failure_code text;
-- reconciliation attempts of an unknown refund (lookups), for the console
alter table order_refunds add column reconcile_attempts integer not null default 0;
-- At most one refund in flight per order: the engine also locks the order row, this index is the last word.
create unique index order_refunds_one_in_flight on order_refunds (order_id) where status in ('pending', 'unknown');
create index order_refunds_store_idx on order_refunds (store_id, mode, created_at desc, id desc);
-- the sweep that hands refunds stuck in 'pending' (process died during the gateway call) to reconciliation
create index order_refunds_pending_idx on order_refunds (updated_at) where status = 'pending';

-- ---- refund requests (the buyer asks, the seller decides; the refund-requests helper may add columns in 007) ----
create table refund_requests (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  order_id text not null references orders(id),
  subscription_id text,
  status text not null check (status in ('requested', 'held', 'approved', 'rejected', 'canceled')),
  amount bigint not null check (amount >= 0),
  currency text not null default 'KRW' check (currency = 'KRW'),
  reason text,
  statutory boolean not null,
  requested_at timestamptz not null,
  decided_at timestamptz,
  decision_reason text,
  refund_id text references order_refunds(id),
  auto_approve_at timestamptz,
  source text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- one active (requested or held) request per order
create unique index refund_requests_one_active on refund_requests (order_id) where status in ('requested', 'held');
create index refund_requests_list_idx on refund_requests (store_id, mode, created_at desc, id desc);
create index refund_requests_auto_idx on refund_requests (auto_approve_at) where status in ('requested', 'held') and auto_approve_at is not null;

-- ---- settlement ----
-- A round closes a store's paid orders (of one mode) up to a cutoff into one payout record. Amounts in won:
-- gross = what the orders took, refunds = what was refunded of them, fees = the service's fee, net = gross - refunds - fees.
create table settlement_rounds (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  cutoff timestamptz not null,
  order_count integer not null,
  gross bigint not null,
  refunds bigint not null,
  fees bigint not null,
  net bigint not null,
  fee_rate_bps integer not null,
  -- 'job' (the weekly scheduler; period_key = the KST Monday of its week) or 'console' (the seller)
  source text not null check (source in ('job', 'console')),
  period_key text,
  created_by text not null,
  created_at timestamptz not null
);
create index settlement_rounds_list_idx on settlement_rounds (store_id, mode, created_at desc, id desc);
-- the weekly job makes at most one round per store, mode and week, however often it runs
create unique index settlement_rounds_job_period on settlement_rounds (store_id, mode, period_key) where source = 'job';

-- What each order contributed to its round, frozen at settlement time.
create table settlement_orders (
  round_id text not null references settlement_rounds(id),
  order_id text primary key references orders(id),
  gross bigint not null,
  refunded bigint not null,
  fee bigint not null,
  net bigint not null
);
create index settlement_orders_round_idx on settlement_orders (round_id, order_id);
create index orders_settlement_idx on orders (store_id, mode, paid_at) where settlement_id is null and status in ('paid', 'refunded');
