-- Migration 136's kept row counts for events: its trigger, then the count of the rows it had, in slot 0. Alone in its
-- migration, so its lock holds the table's writers only for this count (see 136; the big store's check replays it with
-- a payment's writes going on and holds it to a second).
create trigger events_row_counts after insert or delete or update of store_id, mode, type on events for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'events', store_id, mode, coalesce(type, ''), 0, count(*) from events group by grouping sets ((store_id, mode), (store_id, mode, type));
