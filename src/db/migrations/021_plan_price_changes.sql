-- Plan price changes for existing subscribers (issue 21 item 4; 전자상거래법 시행령 as amended 2025-02-14: notice at
-- least 30 days ahead and the buyer's consent before a recurring charge goes up).
-- A seller schedules a new price for a plan (per billing interval) with an effective date at least 30 days away.
create table plan_price_changes (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  product_id text not null references products(id) on delete cascade,
  plan_id text not null,
  -- the new price per interval; null: that interval is not changed
  monthly_price bigint check (monthly_price >= 0),
  yearly_price bigint check (yearly_price >= 0),
  effective_at timestamptz not null,
  created_at timestamptz not null,
  canceled_at timestamptz,
  check (monthly_price is not null or yearly_price is not null)
);
create index plan_price_changes_list_idx on plan_price_changes (store_id, mode, created_at desc, id desc);
create index plan_price_changes_plan_idx on plan_price_changes (product_id, plan_id, created_at desc);

-- One row per subscription told about a change: what it pays now, what it would pay, from which renewal, and the
-- buyer's answer. An increase needs `accepted_at` by that renewal or the subscription ends at its period end.
create table subscription_price_changes (
  subscription_id text not null references subscriptions(id) on delete cascade,
  price_change_id text not null references plan_price_changes(id) on delete cascade,
  billing_interval text not null check (billing_interval in ('monthly', 'yearly')),
  current_amount bigint not null check (current_amount >= 0),
  new_amount bigint not null check (new_amount >= 0),
  -- the first renewal on or after this instant (the subscription's own clock) charges the new amount
  applies_from timestamptz not null,
  -- that renewal, as computed when the buyer was told (the date by which to agree)
  decide_by timestamptz not null,
  -- the subscription's own time when it was told / when the buyer agreed
  notified_at timestamptz not null,
  accepted_at timestamptz,
  -- null: still open; applied (renewed at the new amount), ended (not agreed: ended at the period end without a
  -- charge), superseded (a newer change replaced it), moot (the subscription left the plan or was canceled)
  outcome text check (outcome in ('applied', 'ended', 'superseded', 'moot')),
  resolved_at timestamptz,
  created_at timestamptz not null,
  primary key (subscription_id, price_change_id)
);
create index subscription_price_changes_change_idx on subscription_price_changes (price_change_id);

-- A subscription that was not agreed to a price increase ends with this reason.
alter table subscriptions drop constraint if exists subscriptions_end_reason_check;
alter table subscriptions add constraint subscriptions_end_reason_check check (end_reason in ('canceled', 'payment_failed', 'price_change_declined'));
