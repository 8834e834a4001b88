-- Subscriptions (issue 10): the subscription record, its billing key, and one row per gateway charge it makes.
-- 006/007 belong to the refunds work; the numbers only order the files.

create table subscriptions (
  -- 'sub_' + the body of the checkout session id that started it: one subscription per session, known before the
  -- gateway is called (it is also the gateway's customerKey)
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  -- active → past_due (a renewal failed, retries scheduled) → active (a retry or a card update paid) | ended
  status text not null check (status in ('active', 'past_due', 'ended')),
  product_id text not null references products(id),
  product_name text not null,
  plan_id text not null,
  billing_interval text not null check (billing_interval in ('monthly', 'yearly')),
  -- what the next renewal charges (won): the plan's list price for the interval when the subscription started or
  -- when a plan change last took effect; a coupon applies to the first order only
  amount bigint not null check (amount >= 0),
  currency text not null default 'KRW' check (currency = 'KRW'),
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  cancel_at_period_end boolean not null default false,
  -- when a cancellation was requested (period-end or immediate)
  canceled_at timestamptz,
  cancel_reason text,
  ended_at timestamptz,
  end_reason text check (end_reason in ('canceled', 'payment_failed')),
  started_at timestamptz not null,
  checkout_session_id text unique references checkout_sessions(id),
  buyer_name text not null,
  buyer_email text not null,
  buyer_phone text not null,
  card_brand text,
  card_last4 text,
  -- the gateway's billing key, sealed with the master key (platform/crypto encryptSecret), never returned
  billing_key_sealed text,
  customer_key text not null,
  latest_order_id text,
  metadata jsonb,
  -- a downgrade waiting for the next renewal: { planId, interval, amount, requestedAt }
  pending_plan jsonb,
  -- dunning: failed attempts for the current period (0 when paid up) and when the next retry runs
  dunning_attempts integer not null default 0,
  next_retry_at timestamptz,
  -- test mode only: how far this subscription's own clock runs ahead of the service clock (test clocks)
  test_clock_offset_ms bigint not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index subscriptions_list_idx on subscriptions (store_id, mode, started_at desc, id desc);
create index subscriptions_email_idx on subscriptions (store_id, mode, lower(buyer_email));
create index subscriptions_due_idx on subscriptions (current_period_end) where status <> 'ended';

-- One row per charge of a billing key (renewals, their dunning retries, plan-change differences), claimed before the
-- gateway is called. The unique key makes "at most one charge per period and attempt" a database fact however many
-- workers run; the reserved order id is the gateway's orderId and the row's id its idempotency key, so a retry after
-- a crash (status still 'charging', lease run out) asks the gateway the same question and can never charge twice.
create table subscription_charges (
  id text primary key,
  subscription_id text not null references subscriptions(id) on delete cascade,
  kind text not null check (kind in ('renewal', 'difference')),
  -- renewal: the start of the period being paid for; difference: the moment of the upgrade
  period_start timestamptz not null,
  period_end timestamptz not null,
  -- renewal: 0 for the charge at the period end, 1..n for dunning retries; difference: 0
  attempt integer not null,
  order_id text not null unique,
  -- 0 only for a free plan: recorded without calling the gateway
  amount bigint not null check (amount >= 0),
  -- difference charges: the plan being switched to ({ planId, interval, amount })
  target jsonb,
  -- charging (with the gateway, or died there: see locked_until) → succeeded | failed
  status text not null check (status in ('charging', 'succeeded', 'failed')),
  locked_until timestamptz,
  error_code text,
  error_message text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (subscription_id, kind, period_start, attempt)
);
create index subscription_charges_stale_idx on subscription_charges (locked_until) where status = 'charging';
