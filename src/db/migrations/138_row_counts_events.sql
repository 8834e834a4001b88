-- migration: no-transaction
-- Migration 136's kept row counts for events, without holding the table's writers for the count: a count with the
-- trigger's lock held took 1.7–2.1 s on the million-order store (orders, and two million events), over the second a
-- payment may wait. The trigger is made in a statement of its own (its lock lasts only while it is made); the rows
-- that existed before it are then counted in one statement, whose single snapshot also sees the trigger's counts of
-- every row written since: those are subtracted, so a row written between the two is counted once. The result sits in
-- slot -1, which the trigger never writes (its slots are 0–7). Safe to run again after a crash halfway: the trigger and
-- the table's counts are removed first (a row written between the removal and the new trigger is in the count).
drop trigger if exists events_row_counts on events;
delete from row_counts where table_name = 'events';
create trigger events_row_counts after insert or delete or update of store_id, mode, type on events for each row execute function commerce_row_counts();
insert into row_counts (table_name, store_id, mode, part, slot, n)
  select 'events', coalesce(c.store_id, d.store_id), coalesce(c.mode, d.mode), coalesce(c.part, d.part), -1, coalesce(c.n, 0) - coalesce(d.n, 0)
    from (
      select store_id, mode, coalesce(type, '') as part, count(*) as n from events group by 1, 2, 3
      union all
      select store_id, mode, '', count(*) from events group by 1, 2
    ) c
    full join (select store_id, mode, part, sum(n) as n from row_counts where table_name = 'events' group by 1, 2, 3) d
      on d.store_id = c.store_id and d.mode = c.mode and d.part = c.part;
