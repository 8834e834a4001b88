-- migration: no-transaction
-- Migration 139's kept count of subscription charges, made as 137 makes the orders' (without holding the table's
-- writers for the count): the trigger in a statement of its own, then the charges counted in one statement whose
-- snapshot also sees the trigger's counts of charges written since, which are subtracted; the result in slot -1.
drop trigger if exists subscription_charges_row_counts on subscription_charges;
delete from row_counts where table_name = 'subscription_charges';
create trigger subscription_charges_row_counts after insert or delete or update of subscription_id, status on subscription_charges for each row execute function commerce_charge_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'subscription_charges', coalesce(c.store_id, d.store_id), coalesce(c.mode, d.mode), coalesce(c.part, d.part), -1, coalesce(c.n, 0) - coalesce(d.n, 0)
    from (
      select s.store_id, s.mode, x.status as part, count(*) as n from subscription_charges x join subscriptions s on s.id = x.subscription_id group by 1, 2, 3
      union all
      select s.store_id, s.mode, '', count(*) from subscription_charges x join subscriptions s on s.id = x.subscription_id group by 1, 2
    ) c
    full join (select store_id, mode, part, sum(n) as n from row_counts where table_name = 'subscription_charges' group by 1, 2, 3) d
      on d.store_id = c.store_id and d.mode = c.mode and d.part = c.part;
