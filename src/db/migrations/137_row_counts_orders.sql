-- Migration 136's kept row counts for orders: its trigger, then the count of the rows it had, in slot 0. Alone in its
-- migration, so its lock holds the table's writers only for this count (see 136; the big store's check replays it with
-- a payment's writes going on and holds it to a second).
create trigger orders_row_counts after insert or delete or update of store_id, mode, status on orders for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'orders', store_id, mode, coalesce(status, ''), 0, count(*) from orders group by grouping sets ((store_id, mode), (store_id, mode, status));
