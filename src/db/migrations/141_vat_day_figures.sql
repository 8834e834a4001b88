-- The 부가세 report's figures kept per KST day, so a report reads a few hundred rows for a 과세기간 instead of adding
-- up every sale and refund of it (0.5–0.8 s on a 과세기간 of 128,000 sales on the million-order store; issue 43).
--
-- A row holds the lines of one store, mode, KST day, kind (sale or refund), payment method and currency: their number,
-- the sum of their amounts (positive, refunds too) and the sum of each line's 세액 rounded per line as splitVat rounds
-- it, floor((amount + 5) / 11). These are the facts of the line's own rows. The category also depends on whether a
-- 현금영수증 or a 세금계산서 was issued for the order, which changes after the sale; that part is read at report time
-- from those tables (src/tax/repo.ts), whose rows are few beside the orders'.
--
-- A sale is an order of status paid or refunded with an amount above 0, on the KST day of paid_at; a refund is a
-- succeeded refund with an amount above 0, on the KST day of refunded_at, with its order's method and currency (set
-- when the order was paid, before any refund). As migration 136's counts, `slot` (0–7 from a hash of the row's id)
-- spreads the writers of one day over eight rows; -1 is the count made when the trigger was added (142).
create table vat_day_figures (
  store_id text not null,
  mode text not null,
  day date not null,
  kind text not null,
  method text not null,
  currency text not null,
  slot smallint not null,
  n bigint not null default 0,
  amount bigint not null default 0,
  vat bigint not null default 0,
  primary key (store_id, mode, day, kind, method, currency, slot)
);

create or replace function commerce_vat_day_add(p_store text, p_mode text, p_at timestamptz, p_kind text, p_method text, p_currency text, p_id text, p_sign bigint, p_amount bigint) returns void language plpgsql as $$
begin
  insert into vat_day_figures as f (store_id, mode, day, kind, method, currency, slot, n, amount, vat)
    values (p_store, p_mode, ((p_at at time zone 'UTC') + interval '9 hours')::date, p_kind, p_method, p_currency, hashtext(p_id) & 7,
      p_sign, p_sign * p_amount, p_sign * ((p_amount + 5) / 11))
  on conflict (store_id, mode, day, kind, method, currency, slot)
    do update set n = f.n + excluded.n, amount = f.amount + excluded.amount, vat = f.vat + excluded.vat;
end
$$;

-- An order's sale line, taken away (old) and added (new) when any fact of it changes.
create or replace function commerce_vat_day_orders() returns trigger language plpgsql as $$
declare
  was boolean := false;
  now_is boolean := false;
begin
  if tg_op <> 'INSERT' then
    was := old.status in ('paid', 'refunded') and old.amount > 0 and old.paid_at is not null;
  end if;
  if tg_op <> 'DELETE' then
    now_is := new.status in ('paid', 'refunded') and new.amount > 0 and new.paid_at is not null;
  end if;
  if tg_op = 'UPDATE' and was = now_is and (not was or (old.store_id = new.store_id and old.mode = new.mode and old.paid_at = new.paid_at
      and old.amount = new.amount and old.method = new.method and coalesce(old.presentment_currency, old.currency) = coalesce(new.presentment_currency, new.currency))) then
    return null;
  end if;
  if was then
    perform commerce_vat_day_add(old.store_id, old.mode, old.paid_at, 'sale', old.method, coalesce(old.presentment_currency, old.currency), old.id, -1, old.amount);
  end if;
  if now_is then
    perform commerce_vat_day_add(new.store_id, new.mode, new.paid_at, 'sale', new.method, coalesce(new.presentment_currency, new.currency), new.id, 1, new.amount);
  end if;
  return null;
end
$$;

-- A refund's line, with its order's method and currency.
create or replace function commerce_vat_day_refunds() returns trigger language plpgsql as $$
declare
  was boolean := false;
  now_is boolean := false;
  o_method text;
  o_currency text;
begin
  if tg_op <> 'INSERT' then
    was := old.status = 'succeeded' and old.amount > 0 and old.refunded_at is not null;
  end if;
  if tg_op <> 'DELETE' then
    now_is := new.status = 'succeeded' and new.amount > 0 and new.refunded_at is not null;
  end if;
  if tg_op = 'UPDATE' and was = now_is and (not was or (old.store_id = new.store_id and old.mode = new.mode and old.refunded_at = new.refunded_at
      and old.amount = new.amount and old.order_id = new.order_id)) then
    return null;
  end if;
  if was then
    select method, coalesce(presentment_currency, currency) into o_method, o_currency from orders where id = old.order_id;
    perform commerce_vat_day_add(old.store_id, old.mode, old.refunded_at, 'refund', o_method, o_currency, old.id, -1, old.amount);
  end if;
  if now_is then
    select method, coalesce(presentment_currency, currency) into o_method, o_currency from orders where id = new.order_id;
    perform commerce_vat_day_add(new.store_id, new.mode, new.refunded_at, 'refund', o_method, o_currency, new.id, 1, new.amount);
  end if;
  return null;
end
$$;
