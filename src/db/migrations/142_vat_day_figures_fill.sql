-- migration: no-transaction
-- Migration 141's figures for the sales and refunds already there, made as 137 makes the orders' row counts, without
-- holding the writers of orders or refunds while they are added up: each trigger is made in a statement of its own,
-- then each kind is added up in one statement whose snapshot also sees what the trigger kept since, which is
-- subtracted; the result sits in slot -1. Safe to run again after a crash halfway (triggers and figures removed first).
drop trigger if exists orders_vat_day on orders;
drop trigger if exists order_refunds_vat_day on order_refunds;
delete from vat_day_figures;
create trigger orders_vat_day after insert or delete or update of store_id, mode, status, amount, paid_at, method, currency, presentment_currency on orders for each row execute function commerce_vat_day_orders();
create trigger order_refunds_vat_day after insert or delete or update of store_id, mode, status, amount, refunded_at, order_id on order_refunds for each row execute function commerce_vat_day_refunds();
insert into vat_day_figures (store_id, mode, day, kind, method, currency, slot, n, amount, vat)
  select coalesce(c.store_id, d.store_id), coalesce(c.mode, d.mode), coalesce(c.day, d.day), 'sale', coalesce(c.method, d.method), coalesce(c.currency, d.currency), -1,
      coalesce(c.n, 0) - coalesce(d.n, 0), coalesce(c.amount, 0) - coalesce(d.amount, 0), coalesce(c.vat, 0) - coalesce(d.vat, 0)
    from (
      select store_id, mode, ((paid_at at time zone 'UTC') + interval '9 hours')::date as day, method, coalesce(presentment_currency, currency) as currency,
          count(*) as n, sum(amount) as amount, sum((amount + 5) / 11) as vat
        from orders where status in ('paid', 'refunded') and amount > 0 and paid_at is not null group by 1, 2, 3, 4, 5
    ) c
    full join (
      select store_id, mode, day, method, currency, sum(n) as n, sum(amount) as amount, sum(vat) as vat from vat_day_figures where kind = 'sale' group by 1, 2, 3, 4, 5
    ) d on d.store_id = c.store_id and d.mode = c.mode and d.day = c.day and d.method = c.method and d.currency = c.currency;
insert into vat_day_figures (store_id, mode, day, kind, method, currency, slot, n, amount, vat)
  select coalesce(c.store_id, d.store_id), coalesce(c.mode, d.mode), coalesce(c.day, d.day), 'refund', coalesce(c.method, d.method), coalesce(c.currency, d.currency), -1,
      coalesce(c.n, 0) - coalesce(d.n, 0), coalesce(c.amount, 0) - coalesce(d.amount, 0), coalesce(c.vat, 0) - coalesce(d.vat, 0)
    from (
      select r.store_id, r.mode, ((r.refunded_at at time zone 'UTC') + interval '9 hours')::date as day, o.method, coalesce(o.presentment_currency, o.currency) as currency,
          count(*) as n, sum(r.amount) as amount, sum((r.amount + 5) / 11) as vat
        from order_refunds r join orders o on o.id = r.order_id
        where r.status = 'succeeded' and r.amount > 0 and r.refunded_at is not null group by 1, 2, 3, 4, 5
    ) c
    full join (
      select store_id, mode, day, method, currency, sum(n) as n, sum(amount) as amount, sum(vat) as vat from vat_day_figures where kind = 'refund' group by 1, 2, 3, 4, 5
    ) d on d.store_id = c.store_id and d.mode = c.mode and d.day = c.day and d.method = c.method and d.currency = c.currency;
