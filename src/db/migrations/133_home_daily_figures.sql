-- Home's figures per KST calendar day, kept as the sales happen, so the dashboard's Home reads at most 30 days × 8 slots
-- of rows whatever the number of orders (it summed every paid order and refund of the last 30 days: its p99 grew from
-- 27 to 97 ms in a 25-minute soak as the store filled, issue 43).
--
-- Kept by triggers on the tables themselves, in the same transaction as the change, whichever code path writes it
-- (payments, renewals, refunds, imports, test-data deletion): an order counts as paid while its status is `paid` or
-- `refunded` and it has a `paid_at` (src/dashboard/home-repo.ts, the one definition of paid), on its KST day of
-- `paid_at`; a refund counts once `succeeded`, on the KST day of `refunded_at`; a subscription on the KST day it
-- started. A change removes the row's old contribution and adds its new one (a no-op when neither moved).
--
-- `slot` (0–7, from a hash of the row's id) spreads one store's day over eight rows: with a single row every payment of
-- the store would queue on that row's lock until the payment before it commits.
create table home_daily_figures (
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  day date not null,
  slot smallint not null,
  paid_amount bigint not null default 0,
  paid_orders bigint not null default 0,
  refunded_amount bigint not null default 0,
  new_subscriptions bigint not null default 0,
  primary key (store_id, mode, day, slot)
);

create or replace function commerce_home_daily_add(p_store text, p_mode text, p_at timestamptz, p_id text, p_paid bigint, p_orders bigint, p_refunded bigint, p_subs bigint) returns void language plpgsql as $$
begin
  insert into home_daily_figures as f (store_id, mode, day, slot, paid_amount, paid_orders, refunded_amount, new_subscriptions)
  values (p_store, p_mode, (p_at at time zone 'Asia/Seoul')::date, hashtext(p_id) & 7, p_paid, p_orders, p_refunded, p_subs)
  on conflict (store_id, mode, day, slot) do update set
    paid_amount = f.paid_amount + excluded.paid_amount,
    paid_orders = f.paid_orders + excluded.paid_orders,
    refunded_amount = f.refunded_amount + excluded.refunded_amount,
    new_subscriptions = f.new_subscriptions + excluded.new_subscriptions;
end
$$;

create or replace function commerce_home_daily_orders() returns trigger language plpgsql as $$
declare
  was boolean := tg_op <> 'INSERT' and old.status in ('paid', 'refunded') and old.paid_at is not null;
  now_is boolean := tg_op <> 'DELETE' and new.status in ('paid', 'refunded') and new.paid_at is not null;
begin
  if was and now_is and old.paid_at = new.paid_at and old.amount = new.amount and old.store_id = new.store_id and old.mode = new.mode then
    return null;
  end if;
  if was then perform commerce_home_daily_add(old.store_id, old.mode, old.paid_at, old.id, -old.amount, -1, 0, 0); end if;
  if now_is then perform commerce_home_daily_add(new.store_id, new.mode, new.paid_at, new.id, new.amount, 1, 0, 0); end if;
  return null;
end
$$;

create or replace function commerce_home_daily_refunds() returns trigger language plpgsql as $$
declare
  was boolean := tg_op <> 'INSERT' and old.status = 'succeeded' and old.refunded_at is not null;
  now_is boolean := tg_op <> 'DELETE' and new.status = 'succeeded' and new.refunded_at is not null;
begin
  if was and now_is and old.refunded_at = new.refunded_at and old.amount = new.amount and old.store_id = new.store_id and old.mode = new.mode then
    return null;
  end if;
  if was then perform commerce_home_daily_add(old.store_id, old.mode, old.refunded_at, old.id, 0, 0, -old.amount, 0); end if;
  if now_is then perform commerce_home_daily_add(new.store_id, new.mode, new.refunded_at, new.id, 0, 0, new.amount, 0); end if;
  return null;
end
$$;

create or replace function commerce_home_daily_subscriptions() returns trigger language plpgsql as $$
declare
  was boolean := tg_op <> 'INSERT';
  now_is boolean := tg_op <> 'DELETE';
begin
  if was and now_is and old.started_at = new.started_at and old.store_id = new.store_id and old.mode = new.mode then
    return null;
  end if;
  if was then perform commerce_home_daily_add(old.store_id, old.mode, old.started_at, old.id, 0, 0, 0, -1); end if;
  if now_is then perform commerce_home_daily_add(new.store_id, new.mode, new.started_at, new.id, 0, 0, 0, 1); end if;
  return null;
end
$$;

create trigger orders_home_daily after insert or delete or update of status, paid_at, amount, store_id, mode on orders
  for each row execute function commerce_home_daily_orders();
create trigger order_refunds_home_daily after insert or delete or update of status, refunded_at, amount, store_id, mode on order_refunds
  for each row execute function commerce_home_daily_refunds();
create trigger subscriptions_home_daily after insert or delete or update of started_at, store_id, mode on subscriptions
  for each row execute function commerce_home_daily_subscriptions();

-- The figures of the sales made before this migration, for the days Home shows: the last 30 KST days (32 days back
-- covers them at any hour) and any dated ahead by a test clock. Older days are left out on purpose: Home never reads
-- them, and filling them would hold every payment for the whole history's scan (about 4 s at a million orders) where
-- this reads a month of it. The triggers above already exist in this transaction and their lock on each table holds
-- other writers until it commits, so no sale is counted twice or missed.
insert into home_daily_figures (store_id, mode, day, slot, paid_amount, paid_orders, refunded_amount, new_subscriptions)
select store_id, mode, day, slot, sum(paid_amount), sum(paid_orders), sum(refunded_amount), sum(new_subscriptions)
from (
  select store_id, mode, (paid_at at time zone 'Asia/Seoul')::date as day, (hashtext(id) & 7)::smallint as slot, amount as paid_amount, 1 as paid_orders, 0 as refunded_amount, 0 as new_subscriptions
    from orders where status in ('paid', 'refunded') and paid_at >= now() - interval '32 days'
  union all
  select store_id, mode, (refunded_at at time zone 'Asia/Seoul')::date, (hashtext(id) & 7)::smallint, 0, 0, amount, 0
    from order_refunds where status = 'succeeded' and refunded_at >= now() - interval '32 days'
  union all
  select store_id, mode, (started_at at time zone 'Asia/Seoul')::date, (hashtext(id) & 7)::smallint, 0, 0, 0, 1
    from subscriptions where started_at >= now() - interval '32 days'
) sales
group by store_id, mode, day, slot;
