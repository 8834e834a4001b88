-- Migration 136's kept row counts for orders: its trigger, then the count of the rows it had, in slot 0. Alone in its
-- migration, so its lock holds the table's writers only for this count (see 136; the big store's check replays it with
-- a payment's writes going on and holds it to a second).
create trigger orders_row_counts after insert or delete or update of store_id, mode on orders for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, slot, n) select 'orders', store_id, mode, 0, count(*) from orders group by store_id, mode;
