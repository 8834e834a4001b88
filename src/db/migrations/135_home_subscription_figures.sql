-- Home's active subscriptions and MRR per store, mode and billing interval, kept as the subscriptions change, so Home
-- reads at most 2 × 8 rows whatever the number of subscriptions (it summed every active subscription of the store on
-- each view: 70,000 rows in `npm run bigstore` at a million orders, the one read of Home that grew with the store,
-- issue 43).
--
-- Kept by a trigger on subscriptions, in the same transaction as the change, whichever code path writes it (checkout,
-- renewals, plan changes, cancellation, imports, test-data deletion): a subscription counts while its status is
-- `active`, with its `amount` (what its next renewal charges) under its `billing_interval`. A change removes the row's
-- old contribution and adds its new one (a no-op when neither moved). `slot` (0–7, from a hash of the subscription's
-- id) spreads one store's figures over eight rows so that concurrent changes do not queue on one row's lock.
create table home_subscription_figures (
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  billing_interval text not null check (billing_interval in ('monthly', 'yearly')),
  slot smallint not null,
  active_count bigint not null default 0,
  active_amount bigint not null default 0,
  primary key (store_id, mode, billing_interval, slot)
);

create or replace function commerce_home_subscriptions_add(p_store text, p_mode text, p_interval text, p_id text, p_count bigint, p_amount bigint) returns void language plpgsql as $$
begin
  insert into home_subscription_figures as f (store_id, mode, billing_interval, slot, active_count, active_amount)
  values (p_store, p_mode, p_interval, hashtext(p_id) & 7, p_count, p_amount)
  on conflict (store_id, mode, billing_interval, slot) do update set
    active_count = f.active_count + excluded.active_count,
    active_amount = f.active_amount + excluded.active_amount;
end
$$;

create or replace function commerce_home_subscriptions() returns trigger language plpgsql as $$
declare
  was boolean := tg_op <> 'INSERT' and old.status = 'active';
  now_is boolean := tg_op <> 'DELETE' and new.status = 'active';
begin
  if was and now_is and old.amount = new.amount and old.billing_interval = new.billing_interval and old.store_id = new.store_id and old.mode = new.mode then
    return null;
  end if;
  if was then perform commerce_home_subscriptions_add(old.store_id, old.mode, old.billing_interval, old.id, -1, -old.amount); end if;
  if now_is then perform commerce_home_subscriptions_add(new.store_id, new.mode, new.billing_interval, new.id, 1, new.amount); end if;
  return null;
end
$$;

create trigger subscriptions_home_active after insert or delete or update of status, amount, billing_interval, store_id, mode on subscriptions
  for each row execute function commerce_home_subscriptions();

-- The figures of the subscriptions made before this migration. The trigger above already exists in this transaction
-- and its lock on subscriptions holds other writers until it commits, so none is counted twice or missed. One
-- aggregate over the active subscriptions: 100,000 subscriptions (the big store at a million orders) take well under
-- the second the big store allows a migration to hold writes.
insert into home_subscription_figures (store_id, mode, billing_interval, slot, active_count, active_amount)
select store_id, mode, billing_interval, (hashtext(id) & 7)::smallint, count(*), sum(amount)
  from subscriptions where status = 'active'
 group by store_id, mode, billing_interval, (hashtext(id) & 7)::smallint;
